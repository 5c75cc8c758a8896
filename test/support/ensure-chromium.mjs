// Before the tests: the browser tests drive Debian's Chromium (/usr/bin/chromium). Installs it with
// apt-get when it is missing and we are root; otherwise says how, and fails.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = '/usr/bin/chromium';
if (!existsSync(path)) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.error('Installing chromium for the browser tests (apt-get)…');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } else {
    console.error(`The browser tests need Chromium at ${path}: sudo apt-get install -y chromium`);
    process.exit(1);
  }
}
