// Before the tests: the browser tests drive Debian's Chromium (/usr/bin/chromium) and the export tests
// load SQL into Debian's sqlite3. Installs what is missing with apt-get when we are root; otherwise says
// how, and fails.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const tools = [
  { path: '/usr/bin/chromium', pkg: 'chromium', why: 'the browser tests' },
  { path: '/usr/bin/sqlite3', pkg: 'sqlite3', why: 'the export tests' },
];
const missing = tools.filter((t) => !existsSync(t.path));
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
