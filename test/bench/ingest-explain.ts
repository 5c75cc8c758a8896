// Diagnostic for `bench:ingest` (`npx tsx test/bench/ingest-explain.ts`): times the flush statement
// (sql/queries/insert_events_batch.sql) and variants of it on realistic enriched rows, one flush of FLUSH
// rows at a time (ROUNDS, ERRORS=0.2 for the error mix, EXPLAIN=1 for a plan). DATABASE_URL required.
import { readFileSync } from 'node:fs';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log.ts';
import { enrich, type EnrichedEvent } from '../../src/ingest/enrich.ts';
import { validateEvent } from '../../src/ingest/event-schema.ts';
import { openGeo } from '../../src/ingest/geo.ts';
import { openDatacenter } from '../../src/ingest/datacenter.ts';
import { sessionIdFor } from '../../actors/sessionizer.ts';
import { createTestDatabase } from '../support/database.ts';
import { bodies, makeTemplates, makeVisitors } from './ingest-events.ts';

const FLUSH = Number(process.env.FLUSH ?? 2500);
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const db = await createTestDatabase();
const { sql, close } = await openDatabase({ databaseUrl: db.databaseUrl, dataDir: db.dataDir, log: createLogger('silent'), max: 1 });
try {
  await migrate(sql);
  const [geo, dc] = await Promise.all([openGeo(), openDatacenter()]);
  const lookups = { geo, isDatacenterIp: (ip: string | null) => dc.isDatacenterIp(ip) };
  const next = bodies(makeTemplates(400, 50, makeVisitors(5000), { errors: Number(process.env.ERRORS ?? 0) }), 'x');
  const flushRows = (project: string): EnrichedEvent[] => {
    const out: EnrichedEvent[] = [];
    while (out.length < FLUSH) {
      for (const raw of (JSON.parse(next()) as { events: unknown[] }).events) {
        const c = validateEvent(raw, 0);
        if (!c.ok) throw new Error(JSON.stringify(c));
        const e = enrich(c.event, { projectId: project, salt: 's', keyKind: 'secret', ip: '127.0.0.1', userAgent: null, headers: {}, trustProxy: false, internal: false, receivedAt: Date.now() }, lookups);
        e.session_id = sessionIdFor(e.visitor_id, '0');
        out.push(e);
      }
    }
    return out;
  };
  // The flush's second parameter: the lifecycle machine's occurrence rules (as src/db/event-store.ts builds them).
  const rules = JSON.stringify({
    open: { status: 'open', regression: null, clearResolvedAt: true },
    resolved: { status: 'open', regression: true, clearResolvedAt: true },
    ignored: { status: 'ignored', regression: null, clearResolvedAt: true },
  });
  const strip = (key: string, value: unknown) => (key === 'bot' || key === 'client_session' ? undefined : value);
  const full = readFileSync(new URL('../../sql/queries/insert_events_batch.sql', import.meta.url), 'utf8');
  const cut = (text: string, cte: string) => text.replace(new RegExp(`,\\n${cte} as \\([\\s\\S]*?\\n\\)(?=,\\n|\\nselect)`), '');
  const variants: Record<string, string> = {
    full,
    'no visitors': cut(full, 'visitor_rows'),
    'no sessions': cut(full, 'session_rows'),
    'dedup + events only': cut(cut(cut(full, 'visitor_rows'), 'session_rows'), 'speed_rows'),
    // the cost of one sort per group per ordered aggregate: the same statement with plain aggregates
    'unordered aggregates': full
      .replace(/\(array_agg\((\w+) order by [^)]*\)( filter \(where [^)]*\))?\)\[1\]/g, '(array_agg($1))[1]')
      .replace(/loupe_jsonb_merge\((\w+) order by ts\)/g, 'loupe_jsonb_merge($1)'),
  };
  if (!/array_agg/.test(variants['unordered aggregates']!)) console.log('(all ordered aggregates replaced)');
  await sql`select loupe_ensure_events_partition(now())`;
  for (const [name, text] of Object.entries(variants)) {
    const project = name.replace(/\W+/g, '-');
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const json = JSON.stringify(flushRows(project), strip);
      const t0 = performance.now();
      await sql.begin((tx) => tx.unsafe(text, [json, rules]));
      times.push(performance.now() - t0);
    }
    const steady = times.slice(2);
    const ms = steady.reduce((a, b) => a + b, 0) / steady.length;
    console.log(`${name.padEnd(22)} ${FLUSH} rows: ${ms.toFixed(0)} ms a flush = ${Math.round(FLUSH / ms * 1000)} rows/s  (${times.map((t) => t.toFixed(0)).join(' ')})`);
  }
  if (process.env.EXPLAIN) {
    const json = JSON.stringify(flushRows('explain'), strip);
    await sql.begin(async (tx) => {
      await tx.unsafe(full, [json, rules]);
      const plan = await tx.unsafe(`explain (analyze, buffers, timing) ${full}`, [JSON.stringify(flushRows('explain'), strip), rules]);
      console.log(plan.map((r) => r['QUERY PLAN']).join('\n'));
    });
  }
} finally {
  await close();
  await db.drop();
}
