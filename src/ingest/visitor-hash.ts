// Server-side visitor id for events that arrive without the SDK's anonymous id: a keyed hash of IP and
// user agent under the project's (rotating) salt. The raw IP never leaves this function.
import { createHmac } from 'node:crypto';

/** `h_` + the first 22 base64url characters (132 bits) of HMAC-SHA256(salt, ip + "\n" + userAgent). */
export function hashVisitor(salt: string, ip: string, userAgent: string): string {
  const digest = createHmac('sha256', salt).update(`${ip}\n${userAgent}`).digest('base64url');
  return `h_${digest.slice(0, 22)}`;
}
