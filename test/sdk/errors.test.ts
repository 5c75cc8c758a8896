import t from 'tap';
import { createClient } from '../../src/sdk/browser/client.ts';
import { errors } from '../../src/sdk/browser/errors.ts';
import type { LoupeEvent } from '../../src/sdk/event.ts';
import { fakeBrowser, until } from '../sdk-support/fake-window.ts';

function setup(fetchImpl?: typeof fetch) {
  const browser = fakeBrowser(fetchImpl ? { fetch: fetchImpl } : {});
  const plugin = errors();
  const client = createClient({ key: 'pk_test', host: 'https://loupe.example', plugins: [plugin] }, browser.win, {
    fetch: async () => new Response('{}', { status: 202 }),
  });
  const sent: LoupeEvent[] = [];
  client.onEvent((event) => sent.push(event));
  const errorEvents = () => sent.filter((e) => e.name === 'error');
  return { browser, plugin, client, sent, errorEvents };
}

function errorEvent(fields: { error?: unknown; lineno?: number; message?: string }): Event {
  const event = new Event('error');
  Object.defineProperties(event, {
    error: { value: fields.error ?? null },
    lineno: { value: fields.lineno ?? 0 },
    message: { value: fields.message ?? '' },
  });
  return event;
}

function rejection(reason: unknown): Event {
  const event = new Event('unhandledrejection');
  Object.defineProperty(event, 'reason', { value: reason });
  return event;
}

t.test('rule 1: a non-Error rejection is an Error with String(value) and no stack', async (t) => {
  const { browser, client, errorEvents } = setup();
  browser.winTarget.dispatchEvent(rejection('plain string'));
  browser.winTarget.dispatchEvent(rejection({ code: 7 }));
  const [first, second] = errorEvents();
  t.equal(first?.props?.message, 'plain string');
  t.equal(first?.props?.type, 'Error');
  t.equal(first?.props?.level, 'error');
  t.notOk(first?.props && 'stack' in first.props, 'no stack');
  t.equal(second?.props?.message, '[object Object]');
  client.shutdown();
});

t.test('an Error rejection keeps its type and a scrubbed stack', async (t) => {
  const { browser, client, errorEvents } = setup();
  const error = new TypeError('failed for a.person@example.com');
  error.stack = 'TypeError: failed\n    at load (https://site.example/app.js?v=123456789:10:20)';
  browser.winTarget.dispatchEvent(rejection(error));
  const [event] = errorEvents();
  t.equal(event?.props?.type, 'TypeError');
  t.equal(event?.props?.message, 'failed for [x]');
  t.equal(event?.props?.stack, 'TypeError: failed\n    at load (https://site.example/app.js:10:20)');
  client.shutdown();
});

t.test('rule 2: an error event with neither error object nor line number is not sent', async (t) => {
  const { browser, client, errorEvents } = setup();
  browser.winTarget.dispatchEvent(errorEvent({ message: 'Script error.' }));
  t.equal(errorEvents().length, 0, 'cross-origin Script error. dropped');
  browser.winTarget.dispatchEvent(errorEvent({ message: 'Uncaught ReferenceError: x', lineno: 12 }));
  t.equal(errorEvents().length, 1, 'line number alone is enough');
  t.equal(errorEvents()[0]?.props?.message, 'Uncaught ReferenceError: x');
  browser.winTarget.dispatchEvent(errorEvent({ error: new RangeError('r') }));
  t.equal(errorEvents().length, 2, 'error object alone is enough');
  t.equal(errorEvents()[1]?.props?.type, 'RangeError');
  client.shutdown();
});

t.test('captureError and captureMessage do not scrub, but cut', async (t) => {
  const { plugin, client, errorEvents } = setup();
  plugin.captureError(new Error('mail a.person@example.com ' + 'z'.repeat(300)), { orderId: 'o1' });
  plugin.captureMessage('user 12345678 did a thing', 'warning');
  const [error, message] = errorEvents();
  t.equal((error?.props?.message as string).length, 255);
  t.match(error?.props?.message, /^mail a\.person@example\.com z/);
  t.equal(error?.props?.orderId, 'o1');
  t.equal(message?.props?.message, 'user 12345678 did a thing');
  t.equal(message?.props?.level, 'warning');
  client.shutdown();
});

t.test('rule 4: breadcrumb kinds navigation, click, fetch, event', async (t) => {
  const responses = [404, 200, 'reject', 503] as const;
  let call = 0;
  const appFetch = (async () => {
    const next = responses[call++];
    if (next === 'reject') throw new TypeError('offline');
    return new Response('', { status: next });
  }) as unknown as typeof fetch;
  const { browser, plugin, client, errorEvents } = setup(appFetch);
  browser.navigate('/checkout?step=2');
  const click = new Event('click');
  Object.defineProperty(click, 'target', { value: { tagName: 'BUTTON' } });
  browser.doc.dispatchEvent(click);
  const win = browser.win;
  await win.fetch('https://api.example/cart?session=abc');
  await win.fetch('https://api.example/ok');
  await win.fetch('https://api.example/down').catch(() => {});
  await win.fetch(new Request('https://api.example/busy'));
  await new Promise((resolve) => setImmediate(resolve));
  client.track('added_to_cart', { sku: 'A1' });
  plugin.captureError(new Error('boom'));
  const all = String(errorEvents()[0]?.props?.breadcrumbs)
    .split('\n')
    .map((line) => line.replace(/^\d+ /, ''));
  // The SPA navigation reports engagement for /start only when the clock moved a millisecond or more
  // in between, so that one breadcrumb depends on timing: when present it sits right after /start.
  const engagement = all.indexOf('event engagement');
  t.ok(engagement === -1 || engagement === 1, 'an engagement breadcrumb, if any, follows the page it reports');
  const crumbs = all.filter((c) => c !== 'event engagement');
  t.same(crumbs, [
    'navigation /start',
    'navigation /checkout',
    'click button',
    'fetch 404 https://api.example/cart',
    'fetch 503 https://api.example/busy',
    'event added_to_cart',
  ]);
  client.shutdown();
});

t.test('rule 5: window.fetch is wrapped and restored by shutdown()', async (t) => {
  const original = (async () => new Response('', { status: 500 })) as unknown as typeof fetch;
  const { browser, client } = setup(original);
  t.not(browser.win.fetch, original, 'wrapped while running');
  const response = await browser.win.fetch('https://x.example/');
  t.equal(response.status, 500, 'the wrapper passes the response through');
  client.shutdown();
  t.equal(browser.win.fetch, original, 'restored');
});

t.test('a wrapper installed on top of ours is not clobbered; ours goes inert', async (t) => {
  const original = (async () => new Response('', { status: 500 })) as unknown as typeof fetch;
  const { browser, client, plugin, errorEvents } = setup(original);
  const ours = browser.win.fetch;
  const theirs = ((input: RequestInfo | URL, init?: RequestInit) => ours(input, init)) as typeof fetch;
  browser.win.fetch = theirs;
  client.shutdown();
  t.equal(browser.win.fetch, theirs);
  await browser.win.fetch('https://x.example/');
  plugin.captureError(new Error('after'));
  t.equal(errorEvents().length, 0, 'nothing is sent after shutdown');
});

t.test('shutdown removes the error listeners', async (t) => {
  const { browser, client, errorEvents } = setup();
  client.shutdown();
  t.equal(browser.winTarget.listeners, 0, 'no window listeners left');
  t.equal(browser.doc.listeners, 0, 'no document listeners left');
  browser.winTarget.dispatchEvent(rejection('late'));
  t.equal(errorEvents().length, 0);
});

t.test('the SDK does not record its own ingest requests as fetch breadcrumbs', async (t) => {
  const browser = fakeBrowser();
  const calls: string[] = [];
  const ingest = (async (url: string) => {
    calls.push(url);
    return new Response('', { status: 429, headers: { 'Retry-After': '60' } });
  }) as unknown as typeof fetch;
  const plugin = errors();
  const client = createClient({ key: 'pk_test', host: 'https://loupe.example', plugins: [plugin] }, browser.win, {
    fetch: ingest,
    intervalMs: 5,
  });
  const sent: LoupeEvent[] = [];
  client.onEvent((event) => sent.push(event));
  await until(() => calls.length > 0);
  plugin.captureError(new Error('x'));
  t.notMatch(String(sent.at(-1)?.props?.breadcrumbs), /fetch/);
  client.shutdown();
});
