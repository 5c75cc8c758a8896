// Annotations on the overview's time series in headless Chromium against a real server: an admin adds
// one (from the button, or by clicking the chart at a time), edits and deletes it, each read back through
// the API; a field the API rejects is named; a read token's refusal is shown; a viewer is offered no
// editing. axe-core finds no violation with the form open.
import t from 'tap';
import { startKit } from './dashboard-views-kit.ts';

t.setTimeout(300_000);
const kit = await startKit();
t.teardown(() => kit.close());
const { s } = kit;
const site = await s.project('notes');
const admin = await s.token('admin');
const reader = await s.token('read');
await kit.ingest(site.secretKey, [
  { id: 'pv-1', name: 'pageview', visitor: 'v1', page: { url: 'https://n.example.com/' } },
]);
await s.settle();

type Note = { id: string; title: string; kind: string; date: string; note: string | null };
const list = async () =>
  (await s.request('GET', '/v2/projects/notes/annotations?period=all&limit=100', { token: admin })).body.data as Note[];

t.test('an admin adds, edits and deletes an annotation on the chart', async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/notes');
  await page.waitForSelector('.chart-card .plot.pickable');
  await page.getByRole('button', { name: 'Add annotation' }).click();
  const form = page.getByRole('form', { name: 'New annotation' });
  await form.getByLabel('Title', { exact: true }).fill('Deploy 2.2');
  await form.getByLabel('Kind').selectOption('release');
  await form.getByLabel('Note', { exact: true }).fill('canary first');
  await kit.axe(t, page, 'the overview with the annotation form open');
  await form.getByRole('button', { name: 'Add annotation' }).click();
  await page.locator('.annotations li', { hasText: 'Deploy 2.2' }).waitFor();
  let notes = await list();
  t.equal(notes.length, 1, 'the API has it');
  t.match(notes[0], { title: 'Deploy 2.2', kind: 'release', note: 'canary first' });
  t.ok(Math.abs(Date.parse(notes[0]!.date) - Date.now()) < 5 * 60_000, 'dated now (to the minute, UTC)');
  await kit.shoot(page, 'annotations');
  await kit.fitsPhone(t, page, 'annotations');

  await page.getByRole('button', { name: 'Edit Deploy 2.2' }).click();
  const edit = page.getByRole('form', { name: 'Edit annotation' });
  t.equal(await edit.getByLabel('Title', { exact: true }).inputValue(), 'Deploy 2.2', 'the form holds its values');
  await edit.getByLabel('Title', { exact: true }).fill('Deploy 2.2 (rolled back)');
  await edit.getByLabel('Kind').selectOption('incident');
  await edit.getByRole('button', { name: 'Save annotation' }).click();
  await page.locator('.annotations li', { hasText: 'rolled back' }).waitFor();
  notes = await list();
  t.match(notes[0], { title: 'Deploy 2.2 (rolled back)', kind: 'incident' }, 'the API reads the change');

  await page.getByRole('button', { name: 'Delete Deploy 2.2 (rolled back)' }).click();
  await page.getByRole('button', { name: 'Confirm delete' }).click();
  await page.locator('.annotations li').waitFor({ state: 'detached' });
  t.same(await list(), [], 'the API has none');
  await ctx.close();
});

t.test('a click on the chart starts an annotation at that time; the API names a bad field', async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/notes?period=7d');
  const plot = page.locator('.chart-card .plot.pickable .u-over');
  await plot.waitFor();
  const box = (await plot.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const form = page.getByRole('form', { name: 'New annotation' });
  const picked = await form.getByLabel('Date (UTC)').inputValue();
  const DAY = 86_400_000;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const at = Date.parse(`${picked}:00Z`);
  t.ok(at > today - 7 * DAY && at < today, `the clicked time (${picked}) is inside the 7 days shown`);
  await form.getByLabel('Title', { exact: true }).fill('Backwards');
  await form.getByLabel('End (UTC, optional)').fill(new Date(at - DAY).toISOString().slice(0, 16));
  await form.getByRole('button', { name: 'Add annotation' }).click();
  const alert = form.getByRole('alert');
  await alert.waitFor();
  t.match(await alert.innerText(), /endDate/, 'the field at fault');
  t.same(await list(), [], 'nothing was stored');
  await form.getByRole('button', { name: 'Cancel' }).click();
  await ctx.close();
  for (let i = kit.consoleErrors.length - 1; i >= 0; i--)
    if (/status of 400/.test(kit.consoleErrors[i]!)) kit.consoleErrors.splice(i, 1);
});

t.test("a read token's refusal is shown; a viewer is offered no editing", async (t) => {
  const ctx = await kit.context({ token: reader });
  const page = await kit.open(ctx, '/p/notes');
  await page.getByRole('button', { name: 'Add annotation' }).click();
  const form = page.getByRole('form', { name: 'New annotation' });
  await form.getByLabel('Title', { exact: true }).fill('Not mine to add');
  await form.getByRole('button', { name: 'Add annotation' }).click();
  const refused = await s.request('POST', '/v2/projects/notes/annotations', {
    token: reader,
    body: { title: 'x', date: new Date().toISOString(), kind: 'note' },
  });
  t.equal(refused.status, 403);
  await form.getByRole('alert').waitFor();
  t.match(await form.getByRole('alert').innerText(), refused.body.error.message);
  t.same(await list(), []);
  await ctx.close();
  for (let i = kit.consoleErrors.length - 1; i >= 0; i--)
    if (/status of 403/.test(kit.consoleErrors[i]!)) kit.consoleErrors.splice(i, 1);

  const viewer = await s.member('viewer', ['notes']);
  const vctx = await kit.context({ cookie: viewer.cookie });
  const vpage = await kit.open(vctx, '/p/notes');
  await vpage.waitForSelector('.chart-card .plot');
  await vpage.waitForFunction(() => document.querySelector('.who') !== null);
  t.equal(await vpage.getByRole('button', { name: 'Add annotation' }).count(), 0, 'no Add for a viewer');
  t.equal(await vpage.locator('.plot.pickable').count(), 0, 'the chart is not clickable');
  await vctx.close();
});

t.test('no console errors on any page', async (t) => {
  t.same(kit.consoleErrors, []);
});
