// With DASHBOARD_ORIGIN set, that origin (and only it) may call with credentials.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({ dashboardOrigin: 'https://dash.example.com' });
t.teardown(() => s.close());

t.test('credentials allowed for the dashboard origin only', async (t) => {
  const dash = await s.request('GET', '/v2/projects', { headers: { origin: 'https://dash.example.com' } });
  t.equal(dash.headers.get('access-control-allow-origin'), 'https://dash.example.com');
  t.equal(dash.headers.get('access-control-allow-credentials'), 'true');
  t.match(dash.headers.get('vary'), /Origin/);
  const other = await s.request('GET', '/v2/projects', { headers: { origin: 'https://evil.example.com' } });
  t.equal(other.headers.get('access-control-allow-origin'), '*');
  t.equal(other.headers.get('access-control-allow-credentials'), null);
});
