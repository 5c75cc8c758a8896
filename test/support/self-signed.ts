// A throwaway self-signed certificate for TLS tests, made with openssl (ensure-test-tools installs it).
import { execFileSync } from 'node:child_process';

/** Writes a key and a one-day certificate for `commonName` to the two paths. */
export function selfSignedCertificate(commonName: string, keyPath: string, certPath: string): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'pipe' },
  );
}
