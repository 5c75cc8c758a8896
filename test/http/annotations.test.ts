// Annotations over HTTP: create, list by range (any part in range), page with a cursor, change only the
// fields sent (null clears), delete; the period default; who may read and who may write.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());

await s.project('site', 'private');
await s.project('pub', 'public');
const owner = await s.member('owner');
const viewer = await s.member('viewer', ['site']);

const DAY = 86_400_000;
const todayStart = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
};
const create = async (
  project: string,
  body: Record<string, unknown>,
  as: { cookie?: string; token?: string } = owner,
) => {
  const res = await s.request('POST', `/v2/projects/${project}/annotations`, { ...as, body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; [k: string]: unknown };
};
const list = (project: string, qs: string, as: { cookie?: string; token?: string } = owner) =>
  s.request('GET', `/v2/projects/${project}/annotations${qs}`, as);
const fieldOf = (res: { body: any }) => res.body?.error?.details?.[0]?.field;

t.test('create, read back, change and delete one annotation', async (t) => {
  const res = await s.request('POST', '/v2/projects/site/annotations', {
    ...owner,
    body: {
      title: '  v2.3 released ',
      date: '2026-02-10T12:00:00Z',
      kind: 'release',
      url: 'https://example.com/changelog',
    },
  });
  t.equal(res.status, 201);
  const a = res.body.data;
  t.match(a.id, /^ann_[A-Za-z0-9]{16}$/);
  t.same(
    { ...a, id: 'x', createdAt: 'x', updatedAt: 'x' },
    {
      id: 'x',
      project: 'site',
      title: 'v2.3 released',
      date: '2026-02-10T12:00:00.000Z',
      endDate: null,
      kind: 'release',
      note: null,
      url: 'https://example.com/changelog',
      createdAt: 'x',
      updatedAt: 'x',
    },
  );
  t.equal(a.createdAt, a.updatedAt);

  const listed = await list('site', '?from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z');
  t.equal(listed.status, 200);
  t.same(listed.body, {
    data: [a],
    nextCursor: null,
    range: { from: '2026-02-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' },
  });

  const patched = await s.request('PATCH', `/v2/projects/site/annotations/${a.id}`, {
    ...owner,
    body: { title: 'v2.3.0', note: 'Checkout rewrite' },
  });
  t.equal(patched.status, 200);
  t.match(patched.body.data, {
    id: a.id,
    title: 'v2.3.0',
    note: 'Checkout rewrite',
    kind: 'release',
    date: a.date,
    url: a.url,
    createdAt: a.createdAt,
  });
  t.ok(patched.body.data.updatedAt >= a.updatedAt, 'updatedAt moves on');

  const deleted = await s.request('DELETE', `/v2/projects/site/annotations/${a.id}`, owner);
  t.equal(deleted.status, 200);
  t.same(deleted.body, { data: { id: a.id, deleted: true } });
  t.same((await list('site', '?from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z')).body.data, []);
  const again = await s.request('DELETE', `/v2/projects/site/annotations/${a.id}`, owner);
  t.equal(again.status, 404);
  t.equal(again.body.error.code, 'NOT_FOUND');
  const patchGone = await s.request('PATCH', `/v2/projects/site/annotations/${a.id}`, {
    ...owner,
    body: { title: 'x' },
  });
  t.equal(patchGone.status, 404);
});

t.test('create validation names the field', async (t) => {
  const base = { title: 'Deploy', date: '2026-02-10T12:00:00Z', kind: 'change' };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...base, kind: 'party' }, 'body.kind'],
    [{ ...base, title: '   ' }, 'body.title'],
    [{ ...base, title: 'x'.repeat(201) }, 'body.title'],
    [{ ...base, date: '2026-02-10' }, 'body.date'],
    [{ ...base, endDate: '2026-02-10T11:59:59Z' }, 'body.endDate'],
    [{ ...base, url: 'ftp://example.com/file' }, 'body.url'],
    [{ ...base, url: `https://example.com/${'a'.repeat(2048)}` }, 'body.url'],
    [{ ...base, note: 'n'.repeat(2001) }, 'body.note'],
    [{ ...base, colour: 'red' }, 'body.colour'],
    [{ date: base.date, kind: base.kind }, 'body.title'],
  ];
  for (const [body, field] of cases) {
    const res = await s.request('POST', '/v2/projects/site/annotations', { ...owner, body });
    t.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} → 400`);
    t.equal(fieldOf(res), field);
  }
  const span = await create('site', { ...base, endDate: base.date, note: 'n'.repeat(2000) });
  t.equal(span.endDate, '2026-02-10T12:00:00.000Z', 'an end equal to the start is a valid span');
  await s.request('DELETE', `/v2/projects/site/annotations/${span.id}`, owner);
});

t.test('list parameters: each bad one is a 400 naming it', async (t) => {
  const cases: [string, string][] = [
    ['?from=2026-01-01T00:00:00Z', 'query.to'],
    ['?to=2026-01-01T00:00:00Z', 'query.from'],
    ['?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.to'],
    ['?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.to'],
    ['?from=yesterday&to=2026-01-01T00:00:00Z', 'query.from'],
    ['?period=week', 'query.period'],
    ['?limit=0', 'query.limit'],
    ['?limit=101', 'query.limit'],
    ['?limit=1.5', 'query.limit'],
    ['?limit=ten', 'query.limit'],
    ['?cursor=', 'query.cursor'],
    ['?cursor=not-a-cursor', 'query.cursor'],
    [`?cursor=${Buffer.from(JSON.stringify({ date: 'soon', id: 'ann_x' })).toString('base64url')}`, 'query.cursor'],
  ];
  for (const [qs, field] of cases) {
    const res = await list('site', qs);
    t.equal(res.status, 400, `${qs} → 400`);
    t.equal(res.body.error.code, 'VALIDATION_FAILED');
    t.equal(fieldOf(res), field, qs);
  }
});

t.test('an annotation is listed when any part of it falls in the range', async (t) => {
  await s.project('overlap', 'private');
  const ids: Record<string, string> = {};
  const add = async (name: string, date: string, endDate?: string) => {
    ids[name] = (await create('overlap', { title: name, date, endDate, kind: 'incident' })).id;
  };
  await add('ends-inside', '2026-03-05T00:00:00Z', '2026-03-12T00:00:00Z');
  await add('ends-before', '2026-03-01T00:00:00Z', '2026-03-09T23:59:59Z');
  await add('ends-at-from', '2026-03-02T00:00:00Z', '2026-03-10T00:00:00Z');
  await add('covers', '2026-03-01T00:00:00Z', '2026-03-31T00:00:00Z');
  await add('point-at-from', '2026-03-10T00:00:00Z');
  await add('point-inside', '2026-03-15T08:30:00Z');
  await add('starts-inside', '2026-03-19T00:00:00Z', '2026-04-02T00:00:00Z');
  await add('point-at-to', '2026-03-20T00:00:00Z');
  await add('point-before', '2026-03-09T23:59:59Z');

  const res = await list('overlap', '?from=2026-03-10T00:00:00Z&to=2026-03-20T00:00:00Z');
  t.equal(res.status, 200);
  t.same(
    res.body.data.map((a: { title: string }) => a.title),
    ['covers', 'ends-at-from', 'ends-inside', 'point-at-from', 'point-inside', 'starts-inside'],
    'ordered by date; to is exclusive',
  );
  const span = res.body.data.find((a: { title: string }) => a.title === 'ends-inside');
  t.same(
    [span.id, span.date, span.endDate],
    [ids['ends-inside'], '2026-03-05T00:00:00.000Z', '2026-03-12T00:00:00.000Z'],
  );
  const all = await list('overlap', '?period=all');
  t.equal(all.body.data.length, 9, 'period=all lists everything');
  t.same(all.body.range, { from: null, to: null });
});

t.test('ordered by date then id; the cursor pages through without gaps or repeats', async (t) => {
  await s.project('paged', 'private');
  const made: { id: string; date: string }[] = [];
  for (let i = 0; i < 25; i++) {
    // Pairs share a date, so the id decides their order.
    const date = new Date(Date.UTC(2026, 0, 1 + Math.floor((24 - i) / 2), 9)).toISOString();
    const a = await create('paged', { title: `a${i}`, date, kind: 'note' });
    made.push({ id: a.id, date: a.date as string });
  }
  const expected = [...made]
    .sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
    .map((a) => a.id);
  const range = '?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z';

  const first = await list('paged', range);
  t.equal(first.body.data.length, 20, 'default limit 20');
  t.type(first.body.nextCursor, 'string');

  const seen: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await list('paged', `${range}&limit=10${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(res.status, 200);
    sizes.push(res.body.data.length);
    seen.push(...res.body.data.map((a: { id: string }) => a.id));
    cursor = res.body.nextCursor;
  } while (cursor);
  t.same(sizes, [10, 10, 5]);
  t.same(seen, expected, 'every annotation once, in (date, id) order');
  const exact = await list('paged', `${range}&limit=25`);
  t.equal(exact.body.data.length, 25);
  t.equal(exact.body.nextCursor, null, 'no cursor when the page holds the last row');
});

t.test('period defaults to 30d, ending at the start of today (UTC)', async (t) => {
  await s.project('periods', 'private');
  const today = todayStart();
  const at = (ms: number) => new Date(ms).toISOString();
  await create('periods', { title: 'yesterday', date: at(today - 3_600_000), kind: 'note' });
  await create('periods', { title: 'today', date: at(today + 60_000), kind: 'note' });
  await create('periods', { title: '30 days ago', date: at(today - 30 * DAY), kind: 'note' });
  await create('periods', { title: 'just before 30d', date: at(today - 30 * DAY - 1000), kind: 'note' });
  await create('periods', { title: '10 days ago', date: at(today - 10 * DAY), kind: 'note' });

  const res = await list('periods', '');
  t.equal(res.status, 200);
  t.same(res.body.range, { from: at(today - 30 * DAY), to: at(today) });
  t.same(
    res.body.data.map((a: { title: string }) => a.title),
    ['30 days ago', '10 days ago', 'yesterday'],
  );

  const week = await list('periods', '?period=7d');
  t.same(week.body.range, { from: at(today - 7 * DAY), to: at(today) });
  t.same(
    week.body.data.map((a: { title: string }) => a.title),
    ['yesterday'],
  );

  const hourStart = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const day = await list('periods', '?period=24h');
  t.same(day.body.range, { from: at(hourStart - DAY), to: at(hourStart) });

  const explicit = await list('periods', `?period=7d&from=${at(today)}&to=${at(today + DAY)}`);
  t.same(
    explicit.body.data.map((a: { title: string }) => a.title),
    ['today'],
    'period ignored when from and to are sent',
  );
});

t.test('PATCH changes only the fields sent; null clears endDate, note and url', async (t) => {
  const a = await create('site', {
    title: 'Spring sale',
    date: '2026-04-01T00:00:00Z',
    endDate: '2026-04-08T00:00:00Z',
    kind: 'campaign',
    note: 'Banner on home',
    url: 'https://example.com/sale',
  });
  const path = `/v2/projects/site/annotations/${a.id}`;
  const kindOnly = await s.request('PATCH', path, { ...owner, body: { kind: 'note' } });
  t.match(kindOnly.body.data, {
    title: 'Spring sale',
    kind: 'note',
    endDate: '2026-04-08T00:00:00.000Z',
    note: 'Banner on home',
    url: 'https://example.com/sale',
  });

  const cleared = await s.request('PATCH', path, { ...owner, body: { endDate: null, note: null, url: null } });
  t.equal(cleared.status, 200);
  t.match(cleared.body.data, {
    title: 'Spring sale',
    kind: 'note',
    date: '2026-04-01T00:00:00.000Z',
    endDate: null,
    note: null,
    url: null,
  });

  for (const field of ['title', 'date', 'kind']) {
    const res = await s.request('PATCH', path, { ...owner, body: { [field]: null } });
    t.equal(res.status, 400, `${field}: null is refused`);
    t.equal(fieldOf(res), `body.${field}`);
  }
  const empty = await s.request('PATCH', path, { ...owner, body: {} });
  t.equal(empty.status, 400, 'empty body');
  t.match(empty.body.error.message, /at least one/);
  const unknown = await s.request('PATCH', path, { ...owner, body: { title: 'x', colour: 'red' } });
  t.equal(unknown.status, 400);
  t.equal(fieldOf(unknown), 'body.colour');

  await s.request('PATCH', path, { ...owner, body: { endDate: '2026-04-08T00:00:00Z' } });
  const endBefore = await s.request('PATCH', path, { ...owner, body: { endDate: '2026-03-31T00:00:00Z' } });
  t.equal(endBefore.status, 400, 'a lone endDate is checked against the stored date');
  t.equal(fieldOf(endBefore), 'body.endDate');
  const startAfter = await s.request('PATCH', path, { ...owner, body: { date: '2026-04-09T00:00:00Z' } });
  t.equal(startAfter.status, 400, 'a lone date is checked against the stored endDate');
  t.equal(fieldOf(startAfter), 'body.date');
  const both = await s.request('PATCH', path, {
    ...owner,
    body: { date: '2026-05-02T00:00:00Z', endDate: '2026-05-01T00:00:00Z' },
  });
  t.equal(fieldOf(both), 'body.endDate');
  const moved = await s.request('PATCH', path, {
    ...owner,
    body: { date: '2026-05-01T00:00:00Z', endDate: '2026-05-03T00:00:00Z' },
  });
  t.equal(moved.status, 200, 'both moved together');

  const read = await list('site', '?from=2026-04-01T00:00:00Z&to=2026-06-01T00:00:00Z');
  t.same(
    read.body.data.map((x: any) => [x.id, x.title, x.date, x.endDate, x.kind, x.note, x.url]),
    [[a.id, 'Spring sale', '2026-05-01T00:00:00.000Z', '2026-05-03T00:00:00.000Z', 'note', null, null]],
    'refused changes changed nothing',
  );
});

t.test('access: readers list, admins write, private projects stay hidden', async (t) => {
  const a = await create('site', { title: 'Outage', date: '2026-06-01T10:00:00Z', kind: 'incident' });
  const path = `/v2/projects/site/annotations/${a.id}`;
  const range = '?from=2026-06-01T00:00:00Z&to=2026-06-02T00:00:00Z';

  const asViewer = await list('site', range, viewer);
  t.equal(asViewer.status, 200);
  t.same(
    asViewer.body.data.map((x: { id: string }) => x.id),
    [a.id],
  );
  t.equal(
    (
      await s.request('POST', '/v2/projects/site/annotations', {
        ...viewer,
        body: { title: 'x', date: a.date, kind: 'note' },
      })
    ).status,
    403,
  );
  t.equal((await s.request('PATCH', path, { ...viewer, body: { title: 'x' } })).status, 403);
  t.equal((await s.request('DELETE', path, viewer)).status, 403);
  const readToken = await s.token('read', ['site']);
  t.equal((await s.request('DELETE', path, { token: readToken })).status, 403);

  const anonymous = await list('site', range, {});
  t.equal(anonymous.status, 404);
  t.equal(anonymous.body.error.code, 'NOT_FOUND');
  t.equal(
    (await s.request('POST', '/v2/projects/site/annotations', { body: { title: 'x', date: a.date, kind: 'note' } }))
      .status,
    404,
  );

  const adminToken = await s.token('admin', ['pub']);
  const pub = await create(
    'pub',
    { title: 'Launch', date: '2026-06-01T12:00:00Z', kind: 'release' },
    { token: adminToken },
  );
  const open = await list('pub', range, {});
  t.equal(open.status, 200, 'anyone lists a public project');
  t.same(
    open.body.data.map((x: { id: string; project: string }) => [x.id, x.project]),
    [[pub.id, 'pub']],
  );
  const anonPost = await s.request('POST', '/v2/projects/pub/annotations', {
    body: { title: 'x', date: a.date, kind: 'note' },
  });
  t.equal(anonPost.status, 401);
  t.equal((await s.request('DELETE', `/v2/projects/pub/annotations/${pub.id}`, {})).status, 401);
  t.equal(
    (await s.request('DELETE', `/v2/projects/site/annotations/${pub.id}`, owner)).status,
    404,
    'ids are per project',
  );
});

t.test('deleting a project deletes its annotations', async (t) => {
  await s.project('doomed', 'private');
  await create('doomed', { title: 'Soon gone', date: '2026-01-15T00:00:00Z', kind: 'note' });
  const del = await s.request('DELETE', '/v2/projects/doomed', owner);
  t.equal(del.status, 200);
  await s.project('doomed', 'private');
  const res = await list('doomed', '?period=all');
  t.same(res.body.data, []);
});
