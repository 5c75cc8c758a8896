import t from 'tap';
import { readScriptSettings } from '../../src/sdk/browser/script-options.ts';
import { toReport } from '../../src/sdk/browser/widget-panel.ts';

const tag = (attrs: Record<string, string>, src = 'https://loupe.example/v2/sdk/loupe.js') => ({
  src,
  getAttribute: (name: string) => attrs[name] ?? null,
});

t.test('data attributes become init options; host defaults to the script origin', async (t) => {
  t.equal(readScriptSettings(null, 'https://site.example'), null);
  t.equal(readScriptSettings(tag({}), 'https://site.example'), null, 'data-key is required');
  t.same(readScriptSettings(tag({ 'data-key': 'pk_1' }), 'https://site.example'), {
    options: { key: 'pk_1', host: 'https://loupe.example' },
    errors: true,
    vitals: true,
    widget: false,
  });
  const full = readScriptSettings(
    tag({
      'data-key': 'pk_1',
      'data-host': 'https://l.example',
      'data-proxy-path': '/_loupe',
      'data-release': 'v9',
      'data-environment': 'preview',
      'data-errors': 'false',
      'data-vitals': 'false',
      'data-respect-dnt': '',
      'data-persistence': 'memory',
      'data-auto-pageviews': 'false',
    }),
    'https://site.example',
  );
  t.same(full, {
    options: {
      key: 'pk_1',
      host: 'https://l.example',
      proxyPath: '/_loupe',
      release: 'v9',
      environment: 'preview',
      persistence: 'memory',
      respectDnt: true,
      autoPageviews: false,
    },
    errors: false,
    vitals: false,
    widget: false,
  });
  t.equal(
    readScriptSettings(tag({ 'data-key': 'pk_1', 'data-environment': 'staging' }), 'https://s.example')?.options
      .environment,
    undefined,
  );
  t.equal(
    readScriptSettings(tag({ 'data-key': 'pk_1' }, '/loupe.js'), 'https://s.example')?.options.host,
    'https://s.example',
  );
});

t.test('widget diagnostics become SdkReports', async (t) => {
  t.same(toReport({ kind: 'rate-limited', level: 'warn', message: 'server answered 429', data: { status: 429 } }), {
    level: 'warn',
    message: 'rate-limited: server answered 429',
    data: { kind: 'rate-limited', status: 429 },
  });
});
