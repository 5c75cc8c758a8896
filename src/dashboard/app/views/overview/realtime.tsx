// What is happening now, from the live WebSocket only: visitors online and views per minute in the bar
// above the numbers, and the current pages and countries in their own panel.
import { count, countryName } from '../../format.ts';
import type { Live, Row } from './live.ts';

export function LiveBar({ live }: { live: Live }) {
  const rt = live.realtime.value;
  const status = live.status.value;
  return (
    <div class="livebar" data-status={status}>
      <span class="dot" aria-hidden="true" />
      <span aria-live="polite">
        <strong data-live="online">{rt ? count(rt.visitors) : '–'}</strong> online now ·{' '}
        <strong data-live="vpm">{rt ? rt.pageviewsPerMinute.toFixed(1) : '–'}</strong> views per minute
      </span>
      <span class="muted">
        {status === 'live'
          ? 'live'
          : status === 'connecting'
            ? 'connecting…'
            : status === 'offline'
              ? 'reconnecting…'
              : (live.error.value ?? 'live feed refused')}
      </span>
    </div>
  );
}

export function RealtimePanel({ live }: { live: Live }) {
  const rt = live.realtime.value;
  return (
    <section class="card panel" aria-labelledby="panel-realtime" data-panel="realtime">
      <div class="panel-head">
        <h2 id="panel-realtime">Right now</h2>
        <span class="muted">last 5 minutes</span>
      </div>
      {!rt && live.status.value === 'refused' ? (
        <p class="note error" role="alert">
          {live.error.value ?? 'The live feed was refused.'}
        </p>
      ) : !rt ? (
        <p class="note loading" role="status">
          Waiting for the live feed…
        </p>
      ) : rt.visitors === 0 ? (
        <p class="note empty">Nobody is on the site right now. Visits show up here within a second.</p>
      ) : (
        <div class="split">
          <List title="Pages" rows={rt.pages} show={(v) => v} />
          <List title="Countries" rows={rt.countries} show={countryName} />
        </div>
      )}
    </section>
  );
}

function List({ title, rows, show }: { title: string; rows: Row[]; show: (v: string) => string }) {
  return (
    <table class="rows">
      <thead>
        <tr>
          <th scope="col">{title}</th>
          <th scope="col" class="num">
            Visitors
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.slice(0, 8).map((r) => (
          <tr key={r.value}>
            <th scope="row">
              <span class="value">{show(r.value)}</span>
            </th>
            <td class="num">{count(r.visitors)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
