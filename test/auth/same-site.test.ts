// The rule for cookie-authenticated changes, case by case (the HTTP test sends them through the server).
import t from 'tap';
import { checkCookieMutation, type SameSiteRule } from '../../src/auth/same-site.ts';

const rule: SameSiteRule = { dashboardOrigin: 'https://app.example.com', apiOrigin: 'https://api.example.com' };
const ok = (method: string, headers: Record<string, string>, r = rule) =>
  t.doesNotThrow(() => checkCookieMutation(method, headers, r), `${method} ${JSON.stringify(headers)}`);
const refused = (method: string, headers: Record<string, string>, r = rule) =>
  t.throws(
    () => checkCookieMutation(method, headers, r),
    { code: 'FORBIDDEN' },
    `${method} ${JSON.stringify(headers)}`,
  );

ok('GET', { origin: 'https://evil.example.com' });
ok('HEAD', { 'sec-fetch-site': 'cross-site' });
ok('POST', { origin: 'https://app.example.com' });
ok('PATCH', { origin: 'https://api.example.com' });
ok('DELETE', {});
ok('DELETE', { 'sec-fetch-site': 'same-origin' });
refused('POST', { origin: 'https://evil.example.com' });
refused('POST', { origin: 'null' });
refused('DELETE', { 'sec-fetch-site': 'same-site' });
refused('PATCH', { origin: 'https://app.example.com:8443' });
// Without PUBLIC_URL the request's own host stands for the API's origin.
const noPublicUrl: SameSiteRule = { dashboardOrigin: undefined, apiOrigin: undefined };
ok('POST', { origin: 'http://127.0.0.1:8080', host: '127.0.0.1:8080' }, noPublicUrl);
refused('POST', { origin: 'http://127.0.0.1:9999', host: '127.0.0.1:8080' }, noPublicUrl);
