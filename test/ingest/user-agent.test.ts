import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseUserAgent } from '../../src/ingest/user-agent.ts';

type Fixture = { ua: string; browser?: string; os?: string; device?: string; bot: boolean; signal?: string };
const fixtures: { agents: Fixture[] } = JSON.parse(
  readFileSync(new URL('../fixtures/user-agents.json', import.meta.url), 'utf8'),
);

t.test('every fixture agent is classified as the fixture says', async (t) => {
  t.ok(fixtures.agents.length >= 16, 'fixture loaded');
  for (const agent of fixtures.agents) {
    const info = parseUserAgent(agent.ua);
    t.equal(info.isBot, agent.bot, `bot: ${agent.ua}`);
    t.equal(info.headless, agent.signal === 'headless', `headless: ${agent.ua}`);
    if (agent.browser) t.equal(info.browser, agent.browser, `browser: ${agent.ua}`);
    if (agent.os) t.equal(info.os, agent.os, `os: ${agent.ua}`);
    if (agent.device) t.equal(info.device, agent.device, `device: ${agent.ua}`);
  }
});

t.test('versions are major.minor', async (t) => {
  const chrome = parseUserAgent(fixtures.agents[0].ua);
  t.equal(chrome.browserVersion, '131.0');
  t.equal(chrome.osVersion, '10');
  const mac = parseUserAgent(
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  );
  t.equal(mac.browserVersion, '18.1');
  t.equal(mac.osVersion, '10.15');
  const ipad = parseUserAgent(
    'Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
  );
  t.same([ipad.browser, ipad.os, ipad.osVersion, ipad.device], ['Safari', 'iOS', '17.6', 'tablet']);
});

t.test('Linux distributions report as Linux', async (t) => {
  const ubuntu = parseUserAgent('Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0');
  t.same([ubuntu.browser, ubuntu.os, ubuntu.device], ['Firefox', 'Linux', 'desktop']);
});

t.test('a missing or empty agent is unknown, not a bot', async (t) => {
  for (const ua of [null, '', '   ']) {
    t.same(parseUserAgent(ua), {
      browser: null,
      browserVersion: null,
      os: null,
      osVersion: null,
      device: null,
      isBot: false,
      headless: false,
    });
  }
});

t.test('results are memoised and the cache stays bounded', async (t) => {
  const ua = fixtures.agents[1].ua;
  const first = parseUserAgent(ua);
  t.equal(parseUserAgent(ua), first, 'same object from the cache');
  for (let i = 0; i < 1500; i++) parseUserAgent(`Mozilla/5.0 (Windows NT 10.0) Firefox/${i}.0`);
  const evicted = parseUserAgent(ua);
  t.not(evicted, first, 'the oldest entry was evicted');
  t.same(evicted, first, 'and parses the same again');
  const again = parseUserAgent('Mozilla/5.0 (Windows NT 10.0) Firefox/1499.0');
  t.equal(again.browserVersion, '1499.0');
  t.equal(again.browser, 'Firefox');
});
