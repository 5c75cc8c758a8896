import t from 'tap';
import {
  createBreadcrumbs,
  errorProps,
  messageProps,
  scrubError,
  toErrorLike,
} from '../../src/sdk/browser/error-props.ts';

t.test('rule 1: a non-Error value becomes an Error with String(value) and no stack', async (t) => {
  t.same(toErrorLike('boom'), { name: 'Error', message: 'boom' });
  t.same(toErrorLike(42), { name: 'Error', message: '42' });
  t.same(toErrorLike({ a: 1 }), { name: 'Error', message: '[object Object]' });
  t.same(toErrorLike(undefined), { name: 'Error', message: 'undefined' });
  const props = errorProps(toErrorLike(null), '');
  t.equal(props.message, 'null');
  t.notOk('stack' in props, 'stack omitted');
});

t.test('an Error keeps its name, message and stack', async (t) => {
  const error = new TypeError('bad thing');
  const like = toErrorLike(error);
  t.equal(like.name, 'TypeError');
  t.equal(like.message, 'bad thing');
  t.match(like.stack, /TypeError: bad thing/);
  const noStack = new Error('x');
  noStack.stack = undefined;
  t.notOk('stack' in errorProps(toErrorLike(noStack), ''));
});

t.test('message is cut at 255 and stack at 2048, without scrubbing', async (t) => {
  const message = 'user a.person@example.com ' + 'm'.repeat(400);
  const stack = 'Error\n' + '    at fn (https://x.example/app.js?token=abc:1:2)\n'.repeat(100);
  const props = errorProps({ name: 'RangeError', message, stack }, 'crumbs');
  t.equal((props.message as string).length, 255);
  t.ok((props.message as string).startsWith('user a.person@example.com'), 'not scrubbed');
  t.equal((props.stack as string).length, 2048);
  t.ok(stack.startsWith(props.stack as string), 'the top of the stack is kept');
  t.equal(props.type, 'RangeError');
  t.equal(props.level, 'error');
  t.equal(props.breadcrumbs, 'crumbs');
});

t.test('caller props never override the plugin fields', async (t) => {
  const props = errorProps({ name: 'Error', message: 'm' }, '', 'error', { message: 'x', stack: 'y', extra: 1 });
  t.same(props, { message: 'm', type: 'Error', level: 'error', breadcrumbs: '', extra: 1 });
});

t.test('scrubError scrubs message and stack (the handlers are callers that scrub)', async (t) => {
  const scrubbed = scrubError({
    name: 'Error',
    message: 'mail a.person@example.com id 12345678',
    stack: 'at https://x.example/a.js?q=1:10:5',
  });
  t.equal(scrubbed.message, 'mail [x] id [x]');
  t.equal(scrubbed.stack, 'at https://x.example/a.js:10:5');
});

t.test('captureMessage props', async (t) => {
  t.same(messageProps('m'.repeat(300), 'warning', ''), {
    message: 'm'.repeat(255),
    type: 'Message',
    level: 'warning',
    breadcrumbs: '',
  });
});

t.test('rule 3: breadcrumb line format, message scrubbed and cut at 200', async (t) => {
  let now = 1_700_000_000_123;
  const crumbs = createBreadcrumbs(() => now);
  crumbs.add('fetch', '404 https://api.example/users?email=a@b.co');
  now += 1;
  crumbs.add('event', 'x'.repeat(10) + ' ' + 'a b '.repeat(100));
  const lines = crumbs.text().split('\n');
  t.equal(lines.length, 2);
  t.equal(lines[0], '1700000000123 fetch 404 https://api.example/users');
  t.match(lines[1], /^1700000000124 event x{10} /);
  t.equal(lines[1]!.length, '1700000000124 event '.length + 200);
});

t.test('rule 3: only the last 20 are kept, oldest first', async (t) => {
  let now = 1000;
  const crumbs = createBreadcrumbs(() => now++);
  for (let i = 0; i < 25; i++) crumbs.add('event', `e${i}`);
  const lines = crumbs.text().split('\n');
  t.equal(lines.length, 20);
  t.equal(lines[0], '1005 event e5');
  t.equal(lines[19], '1024 event e24');
});

t.test('breadcrumbs over 2048 characters lose the oldest lines first', async (t) => {
  let now = 1_700_000_000_000;
  const crumbs = createBreadcrumbs(() => now++);
  for (let i = 0; i < 20; i++) crumbs.add('event', `n${String(i).padStart(2, '0')} ${'word '.repeat(60)}`);
  const text = crumbs.text();
  t.ok(text.length <= 2048, `total ${text.length}`);
  const lines = text.split('\n');
  // each line is 13 + ' event ' + 200 = 220 characters, so 9 fit (9 * 220 + 8 = 1988)
  t.equal(lines.length, 9);
  t.match(lines[0], /^1700000000011 event n11 word/);
  t.match(lines[8], /^1700000000019 event n19 word/);
});
