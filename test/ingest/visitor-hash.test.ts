import t from 'tap';
import { createHmac } from 'node:crypto';
import { hashVisitor } from '../../src/ingest/visitor-hash.ts';

const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

t.test('HMAC-SHA256 of ip and agent under the salt, base64url, 22 chars, h_ prefix', async (t) => {
  const id = hashVisitor('salt-1', '203.0.113.7', UA);
  const expected = createHmac('sha256', 'salt-1').update(`203.0.113.7\n${UA}`).digest('base64url').slice(0, 22);
  t.equal(id, `h_${expected}`);
  t.match(id, /^h_[A-Za-z0-9_-]{22}$/);
  t.notOk(id.includes('203.0.113.7'), 'the IP does not appear');
});

t.test('known vector', async (t) => {
  // HMAC-SHA256(key="key", "1.2.3.4\nua"), computed independently with openssl.
  t.equal(hashVisitor('key', '1.2.3.4', 'ua'), 'h_81U_IEYUJBFvj_YvBA0sXg');
});

t.test('stable for the same inputs, different when any input changes', async (t) => {
  const base = hashVisitor('salt-1', '203.0.113.7', UA);
  t.equal(hashVisitor('salt-1', '203.0.113.7', UA), base);
  t.not(hashVisitor('salt-2', '203.0.113.7', UA), base, 'salt rotation changes the id');
  t.not(hashVisitor('salt-1', '203.0.113.8', UA), base);
  t.not(hashVisitor('salt-1', '203.0.113.7', `${UA} `), base);
  // The separator keeps ("1.2.3.4", "5x") and ("1.2.3.45", "x") apart.
  t.not(hashVisitor('s', '1.2.3.4', '5x'), hashVisitor('s', '1.2.3.45', 'x'));
});
