// A PostgreSQL server of a test's own, in a temporary directory on a free port, for what the shared one
// cannot show: it asks for passwords (scram-sha-256, md5, password) and offers TLS with a self-signed
// certificate. Debian's server programs (test/support/ensure-test-tools.mjs installs them); as root, the
// server runs as the postgres user, which owns the directory.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './process.ts';
import { selfSignedCertificate } from './self-signed.ts';

export type PrivatePostgres = {
  port: number;
  socketDir: string;
  /** Runs SQL as the superuser (psql over the Unix socket). */
  psql: (sqlText: string) => void;
  stop: () => void;
};

/** Roles and how each must authenticate over TCP (pg_hba.conf); `postgres` itself is trusted. */
export type Role = { name: string; password: string; method: 'scram-sha-256' | 'md5' | 'password' };

export async function startPrivatePostgres(roles: Role[]): Promise<PrivatePostgres> {
  const bin = serverBin();
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, id('-u'), id('-g'));
  chmodSync(dir, 0o755);
  const run = (program: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args], { stdio: 'pipe' })
      : execFileSync(path.join(bin, program), args, { stdio: 'pipe' });
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);

  // A self-signed certificate for localhost: TLS is offered, and a verifying client must refuse it.
  selfSignedCertificate('localhost', path.join(data, 'server.key'), path.join(data, 'server.crt'));
  chmodSync(path.join(data, 'server.key'), 0o600);
  if (asRoot) for (const f of ['server.key', 'server.crt']) chownSync(path.join(data, f), id('-u'), id('-g'));
  // In the configuration file, not on the command line: a test may turn TLS off (ALTER SYSTEM, reload).
  appendFileSync(path.join(data, 'postgresql.conf'), '\nssl = on\nfsync = off\n');
  writeFileSync(
    path.join(data, 'pg_hba.conf'),
    [
      'local all all trust',
      ...roles.map((r) => `host all ${r.name} 127.0.0.1/32 ${r.method}`),
      'host all postgres 127.0.0.1/32 trust',
      '',
    ].join('\n'),
  );

  const port = await freePort();
  run('pg_ctl', [
    '-D',
    data,
    '-w',
    '-l',
    path.join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    'start',
  ]);
  const stop = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const psql = (sqlText: string) =>
    void run('psql', [
      '-h',
      dir,
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-v',
      'ON_ERROR_STOP=1',
      '-qc',
      sqlText,
    ]);
  try {
    for (const r of roles) {
      // The stored form decides what the role can answer: a SCRAM verifier, or an MD5 hash.
      const encryption = r.method === 'md5' ? 'md5' : 'scram-sha-256';
      psql(
        `set password_encryption = '${encryption}'; create role ${r.name} login password '${r.password.replaceAll("'", "''")}'`,
      );
    }
  } catch (err) {
    stop();
    throw err;
  }
  return { port, socketDir: dir, psql, stop };
}

function serverBin(): string {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(`${root}/${v}/bin/initdb`))
        .sort()
        .at(-1)
    : undefined;
  if (!version)
    throw new Error(
      "PostgreSQL's server programs are missing (apt-get install postgresql; ensure-test-tools.mjs does it as root)",
    );
  return `${root}/${version}/bin`;
}

/** The postgres user's uid (-u) or gid (-g). */
const id = (which: '-u' | '-g') => Number(execFileSync('id', [which, 'postgres']).toString().trim());
