import t from 'tap';
import { parseBreadcrumbs, scrubBreadcrumbs, scrubErrorProps } from '../../src/error-tracking/breadcrumbs.ts';
import { scrub } from '../../src/sdk/scrub.ts';

t.test('parses lines and skips malformed ones', async (t) => {
  const text = [
    '1700000000000 navigation /pricing',
    'garbage',
    '1700000000500 click BUTTON',
    'abc click A',
    '1700000001000 fetch 500 https://api.example.com/cart',
    '',
    '1700000002000 event signup started',
    '1700000003000 click',
  ].join('\n');
  t.same(parseBreadcrumbs(text), [
    { ts: '2023-11-14T22:13:20.000Z', kind: 'navigation', message: '/pricing' },
    { ts: '2023-11-14T22:13:20.500Z', kind: 'click', message: 'BUTTON' },
    { ts: '2023-11-14T22:13:21.000Z', kind: 'fetch', message: '500 https://api.example.com/cart' },
    { ts: '2023-11-14T22:13:22.000Z', kind: 'event', message: 'signup started' },
    { ts: '2023-11-14T22:13:23.000Z', kind: 'click', message: '' },
  ]);
  t.same(parseBreadcrumbs(null), []);
  t.same(parseBreadcrumbs(''), []);
});

t.test('scrubErrorProps re-scrubs and cuts message and stack, leaves the rest', async (t) => {
  const out = scrubErrorProps({
    type: 'TypeError',
    level: 'error',
    message: `user a@b.com ${'m '.repeat(300)}`,
    stack: `TypeError: x\n    at f (https://a.com/x.js?token=abc:1:2)\n${'    at g (https://a.com/y.js:1:2)\n'.repeat(100)}`,
    extra: 42,
  });
  t.equal(out.type, 'TypeError');
  t.equal(out.level, 'error');
  t.equal(out.extra, 42);
  t.equal(out.message?.length, 255);
  t.ok(out.message?.startsWith('user [x] '));
  t.equal(out.stack?.length, 2048);
  t.ok(out.stack?.startsWith('TypeError: x\n    at f (https://a.com/x.js:1:2)\n'));
  t.equal(out.breadcrumbs, undefined);
});

t.test('breadcrumbs: scrubbed, message cut at 200, last 20, 2048 in total with the oldest dropped', async (t) => {
  t.equal(scrubBreadcrumbs('1 navigation /a?x=1\nbad line\n2 event mail a@b.com'), '1 navigation /a\n2 event mail [x]');
  const many = Array.from({ length: 30 }, (_, i) => `${1000 + i} event e${i}`).join('\n');
  const kept = scrubBreadcrumbs(many).split('\n');
  t.equal(kept.length, 20);
  t.equal(kept[0], '1010 event e10');
  const long = Array.from(
    { length: 20 },
    (_, i) => `${1000 + i} event ${String(i % 10).repeat(3)} ${'word '.repeat(60)}`,
  ).join('\n');
  const out = scrubBreadcrumbs(long);
  t.ok(out.length <= 2048);
  const lines = out.split('\n');
  t.ok(lines.every((line) => line.length <= '1000 event '.length + 200));
  t.equal(lines.at(-1)?.slice(0, 4), '1019', 'the newest is kept');
  t.ok(lines.length < 20, 'oldest dropped');
  t.equal(scrubErrorProps({ breadcrumbs: many }).breadcrumbs, scrubBreadcrumbs(many));
});

t.test('breadcrumbs: the same as the rules read line by line, over random texts', async (t) => {
  // The rules written plainly (what scrubBreadcrumbs did before it became one loop): the lines that parse,
  // scrubbed and cut, the last 20, then the oldest dropped while the text is over 2048.
  const LINE = /^(\d{1,15}) ([A-Za-z][\w-]{0,31})(?: (.*))?$/;
  const plainly = (text: string) => {
    const lines = text
      .split('\n')
      .map((line) => LINE.exec(line.replace(/\r$/, '')))
      .filter((parts) => parts !== null)
      .map(([, ms, kind, message]) => `${ms} ${kind} ${scrub(message ?? '').slice(0, 200)}`.trimEnd())
      .slice(-20);
    while (lines.length > 0 && lines.join('\n').length > 2048) lines.shift();
    return lines.join('\n');
  };
  let seed = 11;
  const rand = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  const pieces = [
    '1700000000000 click button',
    '2 navigation /a?b=1',
    'nope',
    '',
    '3 fetch GET /x 500\r',
    '4 console ',
    '5 kind mail a@b.co',
    `6 long ${'w'.repeat(250)}`,
    `7 mid ${'m'.repeat(150)}`,
    '8 x-y  two spaces ',
  ];
  for (let i = 0; i < 500; i++) {
    const text = Array.from({ length: Math.floor(rand() * 40) }, () => pieces[Math.floor(rand() * pieces.length)]).join(
      '\n',
    );
    if (scrubBreadcrumbs(text) !== plainly(text)) return t.fail(`differs for ${JSON.stringify(text)}`);
  }
  t.pass('500 texts alike');
  // At the edge: ten lines of 204 characters joined are 2049 (the oldest goes); one a character shorter, 2048.
  const line = (i: number, n: number) => `${i} k ${'.'.repeat(n)}`; // dots: nothing for the scrub to mask
  const over = Array.from({ length: 10 }, (_, i) => line(i, 200)).join('\n');
  const edge = [line(0, 199), ...Array.from({ length: 9 }, (_, i) => line(i + 1, 200))].join('\n');
  t.same([over.length, edge.length], [2049, 2048]);
  t.equal(scrubBreadcrumbs(over).split('\n').length, 9, 'over 2048: the oldest dropped');
  t.equal(scrubBreadcrumbs(edge), edge, '2048: all kept');
});
