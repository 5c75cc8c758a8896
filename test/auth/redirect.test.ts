// Where a finished sign-in may land: paths (on the dashboard when it has its own origin), URLs on the
// dashboard's or the API's origin; nothing else.
import t from 'tap';
import { signInTarget } from '../../src/auth/redirect.ts';

const API = 'https://api.example.com';
const DASH = 'https://app.example.com';

t.test('accepted', async (t) => {
  t.equal(signInTarget(undefined, API, undefined), `${API}/`);
  t.equal(signInTarget('/projects/x?tab=1#top', API, undefined), `${API}/projects/x?tab=1#top`);
  t.equal(signInTarget('/projects', API, DASH), `${DASH}/projects`, 'a path lands on the dashboard');
  t.equal(signInTarget(`${DASH}/a`, API, DASH), `${DASH}/a`);
  t.equal(signInTarget(`${API}/a`, API, DASH), `${API}/a`);
});

t.test('refused', async (t) => {
  for (const raw of [
    'https://evil.example.com/',
    '//evil.example.com',
    '/\\evil.example.com',
    '/\tevil',
    'javascript:alert(1)',
    'data:text/html,x',
    'https://app.example.com.evil.com/',
    'http://app.example.com/',
    'projects',
    `/${'x'.repeat(2100)}`,
  ]) {
    t.throws(() => signInTarget(raw, API, DASH), { code: 'VALIDATION_FAILED' }, raw.slice(0, 40));
  }
});
