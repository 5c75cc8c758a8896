// The site for the stack-capture test: one script, served under two content-hashed names (webpack-style
// `app-<hex>.js` and `app.<hex>.js?v=2`), each loaded by its own page. The script throws from named
// functions, an anonymous arrow, a minified one-letter function and one place reached by two call
// paths, and hands the caught errors' `stack` strings to the test.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type StacksSite = { url: string; close: () => Promise<void> };

/** Two builds of the same script: the page path and the script's URL as the page loads it. */
export const BUILDS = {
  a: '/assets/app-3f9a2b1c.js',
  b: '/assets/app.9d8e7f6a0b.js?v=2',
} as const;

export type Caught = { name: string; type: string; message: string; stack: string };

// Plain script, not a module: functions are globals, as in a classic bundle. Each `case` is one throw.
export const APP_JS = `function readPrice(item) {
  return item.price.amount
}
function checkoutTotal(cart) {
  return cart.items.reduce(function (sum, item) { return sum + readPrice(item) }, 0)
}
function validateOrder(order) {
  if (!order.email) throw new Error('order is missing an email')
  return order
}
function submitFromForm() { return validateOrder({ from: 'form' }) }
function submitFromApi() { return validateOrder({ from: 'api' }) }
function saveOrder(order) {
  if (!order.email) throw new Error('order is missing an email')
}
function n(e){throw new Error("order "+e+" failed")}
var cases = [
  ['named', function () { checkoutTotal({ items: [{ sku: 'a' }] }) }],
  ['arrow', function () { [1].map(() => { throw new RangeError('arrow failed') }) }],
  ['minified', function () { n(1234) }],
  ['minified-again', function () { n(98765) }],
  ['same-place-form', submitFromForm],
  ['same-place-api', submitFromApi],
  ['other-place', function () { saveOrder({}) }],
]
window.collectStacks = function () {
  return cases.map(function (c) {
    try { c[1]() } catch (e) { return { name: c[0], type: e.name, message: e.message, stack: e.stack } }
    return { name: c[0], type: 'none', message: 'did not throw', stack: '' }
  })
}
`;

export async function startStacksSite(): Promise<StacksSite> {
  const scripts = new Set(Object.values(BUILDS).map((src) => src.split('?')[0]));
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const build = /^\/page\/(\w+)$/.exec(path)?.[1] as keyof typeof BUILDS | undefined;
    if (build && BUILDS[build]) {
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><title>${build}</title><script src="${BUILDS[build]}"></script>`);
    }
    if (scripts.has(path)) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(APP_JS);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
