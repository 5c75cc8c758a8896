// Secret values (API tokens, secret keys, session tokens) and their storage form: a SHA-256 hash.
// The values carry 190+ bits of randomness, so a fast hash is enough; a slow KDF would only slow lookups.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const secret32 = customAlphabet(alphabet, 32);
const id16 = customAlphabet(alphabet, 16);

export const newId = (prefix: string) => `${prefix}_${id16()}`;
export const newApiToken = () => `at_live_${secret32()}`;
export const newSecretKey = () => `sk_${secret32()}`;
export const newPublicKey = () => `pk_${customAlphabet(alphabet, 24)()}`;
export const newSessionToken = () => randomBytes(32).toString('base64url');
export const newSalt = () => randomBytes(32).toString('base64url');

export const hashSecret = (value: string) => createHash('sha256').update(value).digest('hex');

/** A short, non-secret hint for lists ("at_live_…f3Qz"), enough to tell tokens apart. */
export const hintOf = (value: string) => `${value.slice(0, value.indexOf('_', 3) + 1 || 3)}…${value.slice(-4)}`;

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
