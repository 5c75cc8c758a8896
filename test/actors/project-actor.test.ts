// The project actor's write path with a recording store (effects are injected, time is faked): group
// commits, answers only after commit, duplicates by id, failures reported to every waiting request.
import t from 'tap';
import type { ActorStore, PendingLog } from '../../actors/project-actor.ts';
import { ProjectActor } from '../../actors/project-actor.ts';
import { createActorRegistry } from '../../actors/registry.ts';
import type { EnrichedEvent } from '../../src/ingest/enrich.ts';

function recordingStore(opts: { delayMs?: number; fail?: boolean } = {}) {
  const stored = new Set<string>();
  const commits: { events: number; logs: PendingLog[] }[] = [];
  let nextLog = 0;
  const store: ActorStore = {
    async commit(_projectId, events, after) {
      await new Promise((r) => setTimeout(r, opts.delayMs ?? 5));
      if (opts.fail) throw new Error('database down');
      const inserted = new Set<string>();
      for (const e of events) if (!stored.has(e.id)) (stored.add(e.id), inserted.add(e.id));
      const { logs } = after(inserted);
      commits.push({ events: events.length, logs });
      return { inserted, logs: logs.map((l) => ({ ...l, id: String(++nextLog), ts: new Date().toISOString() })) };
    },
  };
  return { store, stored, commits };
}

let n = 0;
const row = (over: Partial<EnrichedEvent> = {}): EnrichedEvent => ({
  project_id: 'p', ts: new Date().toISOString(), id: `id${++n}`, name: 'pageview', visitor_id: 'v', session_id: '', path: '/', route: null,
  title: null, host: 'example.com', referrer: null, referrer_domain: null, channel: 'Direct', utm_source: null, utm_medium: null,
  utm_campaign: null, utm_term: null, utm_content: null, country: 'DE', region: null, city: null, postal_code: null, timezone: null,
  latitude: null, longitude: null, browser: 'Chrome', browser_version: '131.0', os: 'Windows', os_version: '10', device: 'desktop',
  screen: null, viewport: null, language: null, connection: null, props: {}, groups: {}, user_id: null, traits: {}, experiments: {},
  release: null, environment: 'production', is_internal: false, is_localhost: false, bot_score: 0,
  bot_signals: { headless: false, webdriver: null, datacenterAsn: false, pointerEvents: null, uaMismatch: null, uniformDwell: null },
  lcp: null, inp: null, cls: null, fcp: null, ttfb: null, element: null,
  bot: { score: 0, verdict: 'human', signals: { headless: false, webdriver: null, datacenterAsn: false, pointerEvents: null, uaMismatch: null, uniformDwell: null }, reasons: [] },
  issue_id: null, issue_title: null, issue_culprit: null, issue_type: null, issue_level: null,
  client_session: null, ...over,
});
const meta = { requestId: 'r', rejected: 0, rejectionLogs: [] };

t.test('concurrent requests share commits, and each answer follows its commit', async (t) => {
  const { store, stored, commits } = recordingStore({ delayMs: 20 });
  const actor = new ProjectActor('p', store);
  const answers = await Promise.all(Array.from({ length: 50 }, () => {
    const rows = [row(), row()];
    return actor.ingest(rows, meta).then((o) => ({ o, committed: rows.every((r) => stored.has(r.id)) }));
  }));
  t.ok(answers.every((a) => a.committed && a.o.accepted === 2), 'answered after its rows were committed');
  t.ok(commits.length <= 3, `50 requests in ${commits.length} commits`);
  t.equal(commits.reduce((a, c) => a + c.events, 0), 100);
});

t.test('duplicates: a retry and a repeat inside one flush count once', async (t) => {
  const { store, stored } = recordingStore();
  const actor = new ProjectActor('p', store);
  const first = row({ id: 'same' });
  const [a, b] = await Promise.all([actor.ingest([first], meta), actor.ingest([row({ id: 'same' })], meta)]);
  t.same([a, b], [{ accepted: 1, duplicates: 0 }, { accepted: 0, duplicates: 1 }]);
  t.same(await actor.ingest([row({ id: 'same' })], meta), { accepted: 0, duplicates: 1 });
  t.equal(stored.size, 1);
});

t.test('sessions are assigned before the commit; bot verdicts and duplicates write lines', async (t) => {
  const { store, commits } = recordingStore();
  const actor = new ProjectActor('p', store);
  const r1 = row({ visitor_id: 'x', ts: '2026-01-01T10:00:00Z' });
  const r2 = row({ visitor_id: 'x', ts: '2026-01-01T10:20:00Z' });
  const r3 = row({ visitor_id: 'x', ts: '2026-01-01T11:00:00Z' });
  const suspect = row({ visitor_id: 'b', bot_score: 60, bot: { ...r1.bot, score: 60, verdict: 'bot', reasons: ['headless'] } });
  await actor.ingest([r1, r2, r3, suspect], meta);
  t.equal(r1.session_id, r2.session_id, 'within 30 minutes');
  t.not(r2.session_id, r3.session_id, 'after a 40-minute gap');
  const lines = commits[0]!.logs;
  t.match(lines[0], { level: 'ok', kind: 'ingest', message: 'Accepted 4 of 4 events (0 duplicates, 0 rejected)' });
  t.match(lines.find((l) => l.kind === 'signals'), { level: 'warn', source: 'engine', visitor: 'b', data: { verdict: 'bot', score: 60 } });
  t.equal(actor.logs.size, lines.length, 'stored lines enter the ring');
});

t.test('a failed commit fails every waiting request, and nothing is acknowledged', async (t) => {
  const { store } = recordingStore({ fail: true });
  const actor = new ProjectActor('p', store);
  const results = await Promise.allSettled([actor.ingest([row()], meta), actor.ingest([row()], meta)]);
  t.ok(results.every((r) => r.status === 'rejected'));
});

t.test('idle actors are dropped: 10,000 projects stay bounded', async (t) => {
  let clock = 0;
  const { store } = recordingStore({ delayMs: 0 });
  const registry = createActorRegistry({ store, now: () => clock, idleMs: 1000 });
  t.teardown(() => registry.stop());
  for (let i = 0; i < 10_000; i++) registry.get(`p${i}`);
  t.equal(registry.size(), 10_000);
  await registry.get('p1').ingest([row()], meta);
  await registry.get('p1').flush();
  clock = 500;
  t.equal(registry.sweep(), 0, 'nothing idle yet');
  clock = 1_600;
  registry.get('p2').lastActivity = 1_500;
  const dropped = registry.sweep();
  t.equal(dropped, 9_999, `all but the one active lately (dropped ${dropped})`);
  t.equal(registry.size(), 1);
});
