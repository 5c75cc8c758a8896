// Before the tests: the browser tests drive Debian's Chromium (/usr/bin/chromium), the export tests
// load SQL into Debian's sqlite3, and the flush writer's authentication tests start a PostgreSQL server of
// their own (initdb, with a certificate from openssl). Installs what is missing with apt-get when we are
// root; otherwise says how, and fails.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

/** PostgreSQL's server programs, in Debian's layout (/usr/lib/postgresql/<version>/bin). */
const hasInitdb = () =>
  existsSync('/usr/lib/postgresql') &&
  readdirSync('/usr/lib/postgresql').some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`));

const tools = [
  { path: '/usr/bin/chromium', pkg: 'chromium', why: 'the browser tests' },
  { path: '/usr/bin/sqlite3', pkg: 'sqlite3', why: 'the export tests' },
  {
    path: '/usr/lib/postgresql/<version>/bin/initdb',
    present: hasInitdb,
    pkg: 'postgresql',
    why: "the flush writer's authentication tests",
  },
  { path: '/usr/bin/openssl', pkg: 'openssl', why: "the flush writer's TLS test" },
];
const missing = tools.filter((t) => !(t.present ? t.present() : existsSync(t.path)));
if (missing.length > 0) {
  const pkgs = missing.map((t) => t.pkg);
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.error(`Installing ${pkgs.join(', ')} for ${missing.map((t) => t.why).join(' and ')} (apt-get)…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: 'inherit', env });
  } else {
    console.error(
      `The tests need ${missing.map((t) => `${t.path} (${t.why})`).join(' and ')}: sudo apt-get install -y ${pkgs.join(' ')}`,
    );
    process.exit(1);
  }
}
