// The shared read conventions: period arithmetic against a fixed now, 'all', the previous range,
// filters, and errors that name the field.
import t from 'tap';
import * as v from 'valibot';
import { HttpError } from '../../src/errors.ts';
import { previousRange, readQuerySchema, resolveRange, toReadParams, type ReadParams } from '../../src/query/params.ts';

const now = new Date('2026-03-15T13:45:10Z');
const parse = (q: Record<string, unknown>): ReadParams => toReadParams(v.parse(readQuerySchema, q), now);
const fixed = (p: ReadParams) =>
  p.window.kind === 'fixed' ? { from: p.window.range.from.toISOString(), to: p.window.range.to.toISOString() } : null;

t.test('periods end at the start of today (24h: of the hour)', async (t) => {
  t.same(fixed(parse({})), { from: '2026-02-13T00:00:00.000Z', to: '2026-03-15T00:00:00.000Z' }, 'default 30d');
  t.same(fixed(parse({ period: '24h' })), { from: '2026-03-14T13:00:00.000Z', to: '2026-03-15T13:00:00.000Z' });
  t.same(fixed(parse({ period: '7d' })), { from: '2026-03-08T00:00:00.000Z', to: '2026-03-15T00:00:00.000Z' });
  t.same(fixed(parse({ period: '90d' })), { from: '2025-12-15T00:00:00.000Z', to: '2026-03-15T00:00:00.000Z' });
  t.same(fixed(parse({ period: '12mo' })), { from: '2025-03-15T00:00:00.000Z', to: '2026-03-15T00:00:00.000Z' });
  const all = parse({ period: 'all' });
  t.equal(all.window.kind, 'all');
  t.same(resolveRange(all.window, new Date('2025-07-04T10:00:00Z')), {
    from: new Date('2025-07-04T00:00:00Z'),
    to: new Date('2026-03-15T00:00:00Z'),
  });
  t.same(
    resolveRange(all.window, null),
    { from: new Date('2026-03-14T00:00:00Z'), to: new Date('2026-03-15T00:00:00Z') },
    'no events: the last day',
  );
  const p = parse({ from: '2026-01-01T00:00:00Z', to: '2026-01-08T00:00:00+00:00', period: '24h' });
  t.same(fixed(p), { from: '2026-01-01T00:00:00.000Z', to: '2026-01-08T00:00:00.000Z' }, 'from/to win over period');
  t.equal(p.period, null);
  t.same(previousRange({ from: new Date('2026-01-08T00:00:00Z'), to: new Date('2026-01-15T00:00:00Z') }), {
    from: new Date('2026-01-01T00:00:00Z'),
    to: new Date('2026-01-08T00:00:00Z'),
  });
});

t.test('traffic, environment and filters', async (t) => {
  const p = parse({ traffic: 'bots', environment: 'all', filter: { page: '/a', country: '!GB', 'prop:plan': 'pro' } });
  t.match(p, { traffic: 'bots', environment: 'all' });
  t.same(p.filters, [
    { dimension: 'page', value: '/a', exclude: false },
    { dimension: 'country', value: 'GB', exclude: true },
    { dimension: 'prop:plan', value: 'pro', exclude: false },
  ]);
  t.match(parse({}), { traffic: 'human', environment: 'production', filters: [] });
});

t.test('errors name the field', async (t) => {
  const fields = (q: Record<string, unknown>) => {
    const r = v.safeParse(readQuerySchema, q);
    if (!r.success) return r.issues.map((i) => `query.${v.getDotPath(i)}`);
    try {
      toReadParams(r.output, now);
      return [];
    } catch (e) {
      return (e as HttpError).details.map((d) => d.field);
    }
  };
  t.same(fields({ period: '1y' }), ['query.period']);
  t.same(fields({ traffic: 'x' }), ['query.traffic']);
  t.same(fields({ environment: 'staging' }), ['query.environment']);
  t.same(fields({ from: '2026-01-01', to: '2026-01-02T00:00:00Z' }), ['query.from']);
  t.same(fields({ to: '2026-01-02T00:00:00Z' }), ['query.from']);
  t.same(fields({ from: '2026-01-02T00:00:00Z', to: '2026-01-02T00:00:00Z' }), ['query.from']);
  t.same(fields({ filter: { nope: 'x', page: '', 'prop:': 'y' } }), [
    'query.filter[nope]',
    'query.filter[page]',
    'query.filter[prop:]',
  ]);
});
