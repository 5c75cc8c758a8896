import t from 'tap';
import { applyDwell, scoreBot, verdictOf, type BotScoreInput } from '../../src/ingest/bot-score.ts';
import { parseUserAgent } from '../../src/ingest/user-agent.ts';

const CHROME = parseUserAgent(
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
);
const FIREFOX = parseUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0');
const EDGE = parseUserAgent(
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
);
const HEADLESS = parseUserAgent(
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
);
const GOOGLEBOT = parseUserAgent('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)');
const CHROME_HINTS = '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"';

const score = (input: Partial<BotScoreInput>) => scoreBot({ ua: CHROME, datacenter: false, ...input });

t.test('verdict thresholds: human < 25 ≤ suspect < 50 ≤ bot', async (t) => {
  t.same([0, 24, 25, 49, 50, 100].map(verdictOf), ['human', 'human', 'suspect', 'suspect', 'bot', 'bot']);
});

t.test('a plain browser visit is human with nothing fired', async (t) => {
  const result = score({
    signals: { webdriver: false, headless: false, pointerEvents: true },
    clientHintsBrand: CHROME_HINTS,
    dwellTimesMs: [1200, 5400, 30000],
  });
  t.same(result, {
    score: 0,
    verdict: 'human',
    reasons: [],
    signals: {
      headless: false,
      webdriver: false,
      datacenterAsn: false,
      pointerEvents: true,
      uaMismatch: false,
      uniformDwell: false,
    },
  });
});

t.test('nothing reported means nothing evaluated', async (t) => {
  const result = scoreBot({ ua: CHROME, datacenter: null });
  t.equal(result.score, 0);
  t.same(result.signals, {
    headless: false,
    webdriver: null,
    datacenterAsn: null,
    pointerEvents: null,
    uaMismatch: null,
    uniformDwell: null,
  });
});

t.test('each signal on its own', async (t) => {
  const crawler = scoreBot({ ua: GOOGLEBOT, datacenter: null });
  t.ok(crawler.score >= 90, 'crawler ≥ 90');
  t.equal(crawler.verdict, 'bot');
  t.same(crawler.reasons, ['crawler']);

  const headlessUa = scoreBot({ ua: HEADLESS, datacenter: null });
  t.equal(headlessUa.signals.headless, true);
  t.ok(headlessUa.score >= 60, 'HeadlessChrome ≥ 60');
  t.equal(headlessUa.verdict, 'bot');

  const headlessSignal = score({ signals: { headless: true } });
  t.same([headlessSignal.score, headlessSignal.verdict, headlessSignal.signals.headless], [60, 'bot', true]);

  const webdriver = score({ signals: { webdriver: true } });
  t.same([webdriver.score, webdriver.verdict, webdriver.signals.webdriver], [70, 'bot', true]);

  const datacenter = score({ datacenter: true });
  t.same([datacenter.score, datacenter.verdict, datacenter.signals.datacenterAsn], [30, 'suspect', true]);

  const noPointer = score({ signals: { pointerEvents: false } });
  t.same([noPointer.score, noPointer.verdict, noPointer.signals.pointerEvents], [10, 'human', false]);
});

t.test('UA vs client-hints mismatch', async (t) => {
  const cases: Array<[string, ReturnType<typeof parseUserAgent>, string | null | undefined, boolean | null]> = [
    ['Chrome with matching hints', CHROME, CHROME_HINTS, false],
    ['Edge with its hints', EDGE, '"Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24"', false],
    ['Firefox sending Chromium hints', FIREFOX, CHROME_HINTS, true],
    ['Chrome without a Chromium brand', CHROME, '"Not_A Brand";v="8"', true],
    ['Chrome 131 UA, Chromium 120 hints', CHROME, '"Chromium";v="120", "Google Chrome";v="120"', true],
    ['Chrome without the header (plain HTTP)', CHROME, null, null],
    ['Firefox without the header', FIREFOX, undefined, null],
    ['empty header', CHROME, '', null],
    ['unknown browser', parseUserAgent('curl/8.5.0'), CHROME_HINTS, null],
  ];
  for (const [name, ua, hints, expected] of cases) {
    const result = scoreBot({ ua, datacenter: null, clientHintsBrand: hints });
    t.equal(result.signals.uaMismatch, expected, name);
  }
  const firefoxLiar = scoreBot({ ua: FIREFOX, datacenter: false, clientHintsBrand: CHROME_HINTS });
  t.same([firefoxLiar.score, firefoxLiar.verdict], [30, 'suspect']);
});

t.test('uniform dwell times', async (t) => {
  const cases: Array<[number[] | null | undefined, boolean | null]> = [
    [null, null],
    [[1000, 1000], null], // fewer than three samples
    [[1000, 1000, 1000], true],
    [[5000, 5100, 4950, 5020], true], // CV ≈ 1%
    [[0, 0, 0], true],
    [[1000, 4000, 20000], false],
    [[5000, 5500, 4500], false], // CV ≈ 8%
    [[1000, Number.NaN, 1000], null], // only two usable samples
    [[1000, -5, 1000, Number.POSITIVE_INFINITY, 1000], true], // the unusable ones left out of the mean and spread
    [[1000, -5, 4000, Number.NaN, 20000], false],
  ];
  for (const [dwellTimesMs, expected] of cases) {
    t.equal(score({ dwellTimesMs }).signals.uniformDwell, expected, JSON.stringify(dwellTimesMs));
  }
  t.equal(score({ dwellTimesMs: [2000, 2000, 2000] }).score, 30);
});

t.test('signals add up and cap at 100', async (t) => {
  const suspect = score({ datacenter: true, signals: { pointerEvents: false } });
  t.same([suspect.score, suspect.verdict], [40, 'suspect']);
  const bot = score({ datacenter: true, dwellTimesMs: [3000, 3000, 3000] });
  t.same([bot.score, bot.verdict, bot.reasons], [60, 'bot', ['uniformDwell', 'datacenterAsn']]);
  const everything = scoreBot({
    ua: HEADLESS,
    datacenter: true,
    clientHintsBrand: '"Not_A Brand";v="8"',
    dwellTimesMs: [1, 1, 1],
    signals: { webdriver: true, headless: true, pointerEvents: false },
  });
  t.equal(everything.score, 100);
  t.same(everything.signals, {
    headless: true,
    webdriver: true,
    datacenterAsn: true,
    pointerEvents: false,
    uaMismatch: true,
    uniformDwell: true,
  });
  for (const result of [suspect, bot, everything]) t.ok(Number.isInteger(result.score));
});

t.test('applyDwell completes a score with what the session tells of dwell times', async (t) => {
  const plain = score({});
  applyDwell(plain, null);
  t.equal(plain.signals.uniformDwell, null, 'null: the session cannot tell yet, nothing changes');
  applyDwell(plain, false);
  t.same(
    [plain.score, plain.verdict, plain.reasons, plain.signals.uniformDwell],
    [0, 'human', [], false],
    'evaluated, not fired',
  );

  const scripted = score({ datacenter: true });
  applyDwell(scripted, true);
  t.same(
    [scripted.score, scripted.verdict, scripted.reasons],
    [60, 'bot', ['uniformDwell', 'datacenterAsn']],
    'the same as scoreBot given the times',
  );
  t.same(scripted, score({ datacenter: true, dwellTimesMs: [3000, 3000, 3000] }));
  applyDwell(scripted, false);
  t.same(
    [scripted.score, scripted.verdict, scripted.reasons, scripted.signals.uniformDwell],
    [30, 'suspect', ['datacenterAsn'], false],
    'and taken back',
  );
});
