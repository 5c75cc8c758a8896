// Which issue an error event joins (src/ingest/error-issue.ts): the answer is the fingerprint's, whatever
// the memos hold: stacks that differ below the top in-app frame share an issue, and the same stack with
// another type or message does not.
import { createHash } from 'node:crypto';
import t from 'tap';
import { fingerprint } from '../../src/error-tracking/grouping.ts';
import { findFrame } from '../../src/error-tracking/stack-parser.ts';
import { issueFor } from '../../src/ingest/error-issue.ts';

const expected = (type: string, message: string, stack: string) => {
  const top = findFrame(stack, (f) => f.inApp && f.file !== null);
  const fp = fingerprint({ type, message, frames: top ? [top] : [] });
  return {
    issue_id: `iss_${createHash('sha256').update(fp.key).digest('base64url').slice(0, 16)}`,
    issue_title: fp.title,
    issue_culprit: fp.culprit,
  };
};
const stack = (caller: string, column: number) =>
  [
    "TypeError: Cannot read properties of undefined (reading 'price')",
    '    at renderCart (https://shop.example.com/assets/cart-4f9a2b1c.js:1:2045)',
    `    at ${caller} (https://shop.example.com/assets/app-0a1b2c3d.js:1:${column})`,
    '    at HTMLButtonElement.onclick (https://shop.example.com/:12:7)',
  ].join('\n');
const ask = (type: string, message: string, s: string) => {
  const ref = issueFor({ type, message, stack: s }, 0, false)!;
  return { issue_id: ref.issue_id, issue_title: ref.issue_title, issue_culprit: ref.issue_culprit };
};

t.test("stacks that differ below the top in-app frame share the fingerprint's issue", async (t) => {
  const message = "Cannot read properties of undefined (reading 'price')";
  const a = ask('TypeError', message, stack('checkout', 310));
  const b = ask('TypeError', message, stack('updateTotals', 99_120));
  t.same(a, expected('TypeError', message, stack('checkout', 310)), "the fingerprint's issue");
  t.same(b, a, 'another caller and column: the same issue');
  t.match(a.issue_culprit, /renderCart/, 'named after the top in-app frame');
});

t.test("the same stack with another type or message is another issue, each its own fingerprint's", async (t) => {
  const s = stack('checkout', 310);
  const seen = new Set<string>();
  for (const [type, message] of [
    ['TypeError', 'a is undefined'],
    ['TypeError', 'b is undefined'],
    ['RangeError', 'a is undefined'],
    ['TypeError', 'a is undefined'],
  ]) {
    const got = ask(type!, message!, s);
    t.same(got, expected(type!, message!, s), `${type}: ${message}`);
    seen.add(got.issue_id);
  }
  t.equal(seen.size, 3, 'three issues for three (type, message) pairs');
});

t.test('bot and localhost errors join no issue; a stack without an in-app frame still groups', async (t) => {
  t.equal(issueFor({ type: 'Error', message: 'x', stack: stack('a', 1) }, 50, false), null, 'bot score 50');
  t.equal(issueFor({ type: 'Error', message: 'x', stack: stack('a', 1) }, 0, true), null, 'localhost');
  const none = 'Error: boom\n    at chrome-extension://abc/content.js:1:1';
  t.same(ask('Error', 'boom', none), expected('Error', 'boom', none), 'no in-app frame: type and message alone');
});
