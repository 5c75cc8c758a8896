import t from 'tap';
import { isInApp, parseStack } from '../../src/error-tracking/stack-parser.ts';

t.test('empty input gives no frames', async (t) => {
  t.same(parseStack(null), []);
  t.same(parseStack(undefined), []);
  t.same(parseStack(''), []);
  t.same(parseStack('TypeError: Load failed'), []);
});

t.test('V8', async (t) => {
  const frames = parseStack(
    [
      "TypeError: Cannot read properties of undefined (reading 'price')",
      '    at renderCart (https://shop.example.com/assets/index-4f9a2b1c.js:1:10234)',
      '    at Array.map (<anonymous>)',
      '    at https://shop.example.com/assets/index-4f9a2b1c.js:1:10012',
      '    at async loadUser (https://app.example.com/static/js/main.3f2a9c71.js:2:8812)',
      '    at async Promise.all (index 0)',
      '    at new Cart (http://localhost:3000/src/cart.ts:12:7)',
      '    at Object.n [as handler] (https://a.com/x.js:1:4400)',
      '    at eval (eval at run (https://a.com/y.js:4:2), <anonymous>:1:1)',
      '    at Object.<anonymous> (/srv/app/node_modules/lib/index.js:5:6)',
      '    at node:internal/process/task_queues:95:5',
    ].join('\n'),
  );
  t.same(frames, [
    {
      file: 'https://shop.example.com/assets/index-4f9a2b1c.js',
      line: 1,
      column: 10234,
      function: 'renderCart',
      inApp: true,
    },
    { file: '<anonymous>', line: null, column: null, function: 'Array.map', inApp: false },
    { file: 'https://shop.example.com/assets/index-4f9a2b1c.js', line: 1, column: 10012, function: null, inApp: true },
    {
      file: 'https://app.example.com/static/js/main.3f2a9c71.js',
      line: 2,
      column: 8812,
      function: 'loadUser',
      inApp: true,
    },
    { file: null, line: null, column: null, function: 'Promise.all', inApp: false },
    { file: 'http://localhost:3000/src/cart.ts', line: 12, column: 7, function: 'new Cart', inApp: true },
    { file: 'https://a.com/x.js', line: 1, column: 4400, function: 'Object.n [as handler]', inApp: true },
    { file: 'https://a.com/y.js', line: 4, column: 2, function: 'eval', inApp: true },
    { file: '/srv/app/node_modules/lib/index.js', line: 5, column: 6, function: 'Object.<anonymous>', inApp: false },
    { file: 'node:internal/process/task_queues', line: 95, column: 5, function: null, inApp: false },
  ]);
});

t.test('V8: a header line with an @ is not a frame', async (t) => {
  const frames = parseStack('Error: mail a@b.com:1:2 bounced\n    at send (https://a.com/m.js:3:4)');
  t.equal(frames.length, 1);
  t.equal(frames[0].function, 'send');
});

t.test('SpiderMonkey (Firefox)', async (t) => {
  const frames = parseStack(
    [
      'renderCart@https://shop.example.com/assets/index-4f9a2b1c.js:1:10234',
      '@https://shop.example.com/assets/index-4f9a2b1c.js:1:10012',
      'async*loadUser@https://a.com/u.js:2:5',
      'run@https://a.com/z.js line 7 > eval:1:3',
      'moz@moz-extension://1234/content.js:3:4',
      '',
    ].join('\n'),
  );
  t.same(frames, [
    {
      file: 'https://shop.example.com/assets/index-4f9a2b1c.js',
      line: 1,
      column: 10234,
      function: 'renderCart',
      inApp: true,
    },
    { file: 'https://shop.example.com/assets/index-4f9a2b1c.js', line: 1, column: 10012, function: null, inApp: true },
    { file: 'https://a.com/u.js', line: 2, column: 5, function: 'loadUser', inApp: true },
    { file: 'https://a.com/z.js', line: 7, column: null, function: 'run', inApp: true },
    { file: 'moz-extension://1234/content.js', line: 3, column: 4, function: 'moz', inApp: false },
  ]);
});

t.test('JavaScriptCore (Safari)', async (t) => {
  const frames = parseStack(
    [
      'renderCart@https://shop.example.com/assets/index-4f9a2b1c.js:1:10240',
      'map@[native code]',
      '[native code]',
      'global code@https://shop.example.com/assets/index-4f9a2b1c.js:1:9000',
      'inject@safari-web-extension://ABC/script.js:1:1',
    ].join('\n'),
  );
  t.same(frames, [
    {
      file: 'https://shop.example.com/assets/index-4f9a2b1c.js',
      line: 1,
      column: 10240,
      function: 'renderCart',
      inApp: true,
    },
    { file: '[native code]', line: null, column: null, function: 'map', inApp: false },
    { file: '[native code]', line: null, column: null, function: null, inApp: false },
    {
      file: 'https://shop.example.com/assets/index-4f9a2b1c.js',
      line: 1,
      column: 9000,
      function: 'global code',
      inApp: true,
    },
    { file: 'safari-web-extension://ABC/script.js', line: 1, column: 1, function: 'inject', inApp: false },
  ]);
});

t.test('inApp', async (t) => {
  const outside = [
    null,
    '<anonymous>',
    '[native code]',
    'chrome-extension://abc/c.js',
    'moz-extension://abc/c.js',
    'safari-extension://abc/c.js',
    'safari-web-extension://abc/c.js',
    '/app/node_modules/react-dom/cjs/react-dom.js',
    'https://cdn.jsdelivr.net/gh/x/y.js',
    'https://unpkg.com/vue@3/dist/vue.js',
    'https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js',
    'https://maps.googleapis.com/maps/api/js',
    'https://www.googletagmanager.com/gtag/js',
    'https://cdn.example.net/npm/lodash@4.17.21/lodash.min.js',
  ];
  for (const file of outside) t.equal(isInApp(file), false, String(file));
  for (const file of [
    'https://shop.example.com/assets/index.js',
    'webpack-internal:///./src/x.js',
    '/app/src/a.ts',
    'http://localhost:5173/src/main.ts',
  ]) {
    t.equal(isInApp(file), true, file);
  }
});
