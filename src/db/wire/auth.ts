// Password authentication for the flush writer's connections: MD5 and SCRAM-SHA-256 (RFC 5802, RFC 7677,
// the password prepared by SASLprep), without channel binding, as PostgreSQL offers them. Pure functions over the messages' text; the
// connection sends and reads them.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { saslprep } from './saslprep.ts';

/** The answer to AuthenticationMD5Password: 'md5' + md5(md5(password + user) + salt). */
export function md5Password(user: string, password: string, salt: Buffer): string {
  const inner = createHash('md5')
    .update(password + user)
    .digest('hex');
  return `md5${createHash('md5').update(inner).update(salt).digest('hex')}`;
}

export type ScramClient = {
  /** client-first-message, sent in SASLInitialResponse. */
  first: string;
  /** client-final-message for the server's first message; throws on a malformed or foreign nonce. */
  final: (serverFirst: string) => string;
  /** Checks the server's final message (its signature proves it knows the password). */
  verify: (serverFinal: string) => void;
};

/** PostgreSQL takes the user name from the startup packet and ignores SCRAM's (`*` by convention). */
export function scramClient(password: string, opts: { user?: string; nonce?: string } = {}): ScramClient {
  const nonce = opts.nonce ?? randomBytes(18).toString('base64');
  const firstBare = `n=${opts.user ?? '*'},r=${nonce}`;
  let expected: Buffer | null = null;
  return {
    first: `n,,${firstBare}`,
    final(serverFirst) {
      const f = attributes(serverFirst);
      if (!f.r?.startsWith(nonce) || !f.s || !f.i) throw new Error("SCRAM: the server's first message is malformed");
      // Prepared as PostgreSQL prepared it when it stored the role's password (saslprep.ts).
      const salted = pbkdf2Sync(saslprep(password), Buffer.from(f.s, 'base64'), Number(f.i), 32, 'sha256');
      const clientKey = hmac(salted, 'Client Key');
      const withoutProof = `c=biws,r=${f.r}`;
      const authMessage = `${firstBare},${serverFirst},${withoutProof}`;
      const signature = hmac(createHash('sha256').update(clientKey).digest(), authMessage);
      const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
      expected = hmac(hmac(salted, 'Server Key'), authMessage);
      return `${withoutProof},p=${proof.toString('base64')}`;
    },
    verify(serverFinal) {
      const f = attributes(serverFinal);
      if (f.e) throw new Error(`SCRAM: the server refused: ${f.e}`);
      const got = Buffer.from(f.v ?? '', 'base64');
      if (!expected || got.length !== expected.length || !timingSafeEqual(got, expected)) {
        throw new Error("SCRAM: the server's signature does not match (it does not know the password)");
      }
    },
  };
}

const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();

/** `a=1,b=2` into { a: '1', b: '2' } (values may hold '=', never ','). */
function attributes(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of message.split(',')) out[part.slice(0, 1)] = part.slice(2);
  return out;
}
