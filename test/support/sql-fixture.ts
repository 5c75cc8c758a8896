// Two projects with traffic for the SQL route's tests: `alpha` (the caller's) and `beta` (another
// tenant, whose rows must never show), both with sqlEnabled; every value of beta carries "beta".
import type { Test } from 'tap';
import { updateProject } from '../../src/db/projects.ts';
import type { TestServer } from './server.ts';

export const DAY = 86_400_000;
export const today = Math.floor(Date.now() / DAY) * DAY;
export const iso = (ms: number) => new Date(ms).toISOString();

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const person = (i: number) => ({ ip: `81.2.69.${100 + (i % 50)}`, userAgent: chrome });

/** Seeds both projects through ingest (the real write path) and answers their keys. */
export async function seedTwoProjects(s: TestServer) {
  const alpha = await s.project('alpha');
  const beta = await s.project('beta');
  for (const id of ['alpha', 'beta']) await updateProject(s.loupe.services.sql, id, { sqlEnabled: true });
  await s.loupe.services.projects.refresh();
  for (const [p, tag] of [
    [alpha, 'a'],
    [beta, 'beta'],
  ] as const) {
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < 60; i++) {
      const day = today - (1 + (i % 8)) * DAY + (i % 12) * 3_600_000;
      const visitor = `${tag}-v${i % 17}`;
      const session = `${tag}-s${i % 23}`;
      const path = `/${tag === 'a' ? '' : 'beta-'}${['home', 'pricing', 'docs', 'blog'][i % 4]}`;
      const base = { visitor, session, context: person(i), release: `${tag}-1.${i % 3}` };
      events.push({
        ...base,
        id: `${tag}-pv${i}`,
        name: 'pageview',
        ts: iso(day),
        page: { url: `https://${tag}.example.com${path}`, route: path },
      });
      if (i % 3 === 0)
        events.push({
          ...base,
          id: `${tag}-su${i}`,
          name: 'signup',
          ts: iso(day + 1000),
          props: { plan: i % 2 ? 'pro' : 'free', secret: tag },
        });
      if (i % 5 === 0) events.push({ ...base, id: `${tag}-co${i}`, name: 'checkout', ts: iso(day + 2000) });
      if (i % 6 === 0)
        events.push({
          ...base,
          id: `${tag}-er${i}`,
          name: 'error',
          ts: iso(day + 3000),
          page: { url: `https://${tag}.example.com${path}` },
          props: {
            type: 'TypeError',
            message: `${tag} broke ${i % 2}`,
            stack: `TypeError: x\n    at render (https://${tag}.example.com/app.js:1:${(i % 2) + 10})`,
            level: 'error',
          },
        });
      if (i % 2 === 0)
        events.push({
          ...base,
          id: `${tag}-sp${i}`,
          name: 'speed',
          ts: iso(day + 4000),
          page: { url: `https://${tag}.example.com${path}`, route: path },
          vitals: { lcp: 1000 + i * 37, fcp: 500 + i, inp: 50 + i, cls: 0.01 * (i % 7), ttfb: 100 + i },
        });
    }
    const res = await s.request('POST', '/v2/ingest', { token: p.secretKey, body: { events } });
    if (res.status !== 202 || res.body.rejected.length > 0) throw new Error(`seed ${tag}: ${res.text}`);
  }
  const owner = await s.member('owner');
  for (const id of ['alpha', 'beta'])
    await s.request('POST', `/v2/projects/${id}/annotations`, {
      cookie: owner.cookie,
      body: { title: `${id} launch`, date: iso(today - 3 * DAY), kind: 'release' },
    });
  await s.settle();
  return { alpha, beta, owner };
}

/** Every string in an answer, to check none of another tenant's values leaked into it. */
export const leaks = (body: unknown) => JSON.stringify(body ?? null).includes('beta');

/** The attack suites' runner: `expectSafe` passes a 400 with one of `codes`, or, when `codes` holds
 *  'rows', a 200 that holds nothing of beta. */
export function safeRunner(s: TestServer, cookie: string) {
  const run = (query: string, qs = '') => s.request('POST', `/v2/projects/alpha/sql${qs}`, { cookie, body: { query } });
  async function expectSafe(t: Test, query: string, codes: string[]) {
    const res = await run(query);
    const label = query.slice(0, 90);
    if (res.status === 200) {
      t.ok(codes.includes('rows'), `${label} → 200 allowed (${res.text.slice(0, 80)})`);
      t.notOk(leaks(res.body), `${label}: nothing of beta`);
    } else {
      t.equal(res.status, 400, `${label} → 400 (${res.text.slice(0, 160)})`);
      t.ok(codes.includes(res.body?.error?.code), `${label.slice(0, 60)}: ${res.body?.error?.code} in ${codes}`);
      t.notOk(leaks(res.body), 'the error holds nothing of beta');
    }
    return res;
  }
  return { run, expectSafe, REFUSED: ['SQL_REFUSED'], REFUSED_OR_ERROR: ['SQL_REFUSED', 'SQL_ERROR'] };
}
