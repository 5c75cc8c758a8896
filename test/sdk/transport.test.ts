// The transport's exit path: what flushBeacon hands to sendBeacon when the page goes away.
import t from 'tap';
import { memoryStore } from '../../src/sdk/browser/storage.ts';
import { createTransport } from '../../src/sdk/browser/transport.ts';
import type { LoupeEvent } from '../../src/sdk/event.ts';
import { fakeBrowser, recordingFetch } from '../sdk-support/fake-window.ts';

function setup() {
  const browser = fakeBrowser();
  const { fetch, calls } = recordingFetch();
  const transport = createTransport({
    endpoint: 'https://loupe.example/v2/ingest?key=pk_x',
    window: browser.win,
    fetch,
    store: memoryStore(),
    storeKey: 'q',
    diagnose: () => {},
  });
  t.teardown(() => transport.close());
  return { browser, calls, transport };
}

const event = (id: string): LoupeEvent => ({ id, name: 'signup', ts: new Date().toISOString() });

t.test('queued reports go out with the exit beacon', async (t) => {
  const { browser, calls, transport } = setup();
  transport.enqueue(event('a'));
  transport.report({ level: 'error', message: 'validation: track("x") not sent' });
  transport.flushBeacon();
  t.equal(browser.beacons.length, 1);
  const body = JSON.parse(browser.beacons[0]!.body);
  t.same(
    body.events.map((e: LoupeEvent) => e.id),
    ['a'],
  );
  t.same(body.reports, [{ level: 'error', message: 'validation: track("x") not sent' }]);
  t.equal(calls.length, 0, 'no fetch');
  transport.flushBeacon();
  t.equal(browser.beacons.length, 1, 'nothing left to send');
});

t.test('reports alone still leave by beacon; events alone carry no reports member', async (t) => {
  const { browser, transport } = setup();
  transport.report({ level: 'warn', message: 'dropped: offline queue full' });
  transport.flushBeacon();
  t.same(JSON.parse(browser.beacons[0]!.body), {
    events: [],
    reports: [{ level: 'warn', message: 'dropped: offline queue full' }],
  });
  transport.enqueue(event('b'));
  transport.flushBeacon();
  t.same(Object.keys(JSON.parse(browser.beacons[1]!.body)), ['events']);
});

t.test("cookies go only to the site's own proxy path, never straight to Loupe", async (t) => {
  for (const viaProxy of [false, true]) {
    const browser = fakeBrowser();
    const { fetch, calls } = recordingFetch();
    const transport = createTransport({
      endpoint: viaProxy ? '/_loupe/v2/ingest?key=pk_x' : 'https://loupe.example/v2/ingest?key=pk_x',
      viaProxy,
      window: browser.win,
      fetch,
      store: memoryStore(),
      storeKey: 'q',
      diagnose: () => {},
    });
    transport.enqueue(event('c'));
    await transport.flush();
    transport.close();
    t.equal(calls[0]?.init.credentials, viaProxy ? 'same-origin' : 'omit', viaProxy ? 'proxy path' : 'direct');
  }
});
