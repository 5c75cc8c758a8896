// A card of labelled facts (a definition list) and the bot verdict card: score, verdict and the signals
// that fired, in words.
export function Facts({ title, rows }: { title: string; rows: [string, string | null][] }) {
  const shown = rows.filter(([, v]) => v !== null && v !== '');
  return (
    <section class="card facts" aria-label={title}>
      <h2>{title}</h2>
      {shown.length === 0 ? (
        <p class="note empty">Nothing recorded.</p>
      ) : (
        <dl>
          {shown.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

const SIGNALS: Record<string, string> = {
  webdriver: 'the browser says it is automated (navigator.webdriver)',
  headless: 'a headless browser',
  uaMismatch: 'the user agent does not match the browser',
  uniformDwell: 'the same time on every page',
  datacenterAsn: 'connects from a data centre',
  pointerEvents: 'no pointer or touch input',
};

/** The signals behind a score: each that fired (pointerEvents counts when it is false: none were seen). */
export const firedSignals = (signals: Record<string, boolean | null>) =>
  Object.entries(signals)
    .filter(([k, on]) => (k === 'pointerEvents' ? on === false : on === true))
    .map(([k]) => k);

export function BotVerdict({
  bot,
}: {
  bot: { score: number; verdict: string; signals: Record<string, boolean | null> };
}) {
  const fired = firedSignals(bot.signals);
  return (
    <section class="card facts bot" aria-label="Bot verdict">
      <h2>Bot verdict</h2>
      <p>
        <strong class={`verdict ${bot.score >= 50 ? 'bad' : 'good'}`}>{bot.verdict}</strong> (score{' '}
        <span data-score>{bot.score}</span> of 100; 50 or more counts as a bot)
      </p>
      {fired.length === 0 ? (
        <p class="note">No bot signal fired.</p>
      ) : (
        <ul aria-label="Reasons">
          {fired.map((k) => (
            <li key={k} data-reason={k}>
              {SIGNALS[k] ?? k}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
