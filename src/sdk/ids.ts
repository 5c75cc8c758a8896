// Identifiers made by the SDKs, and by the server for an event sent without one. Event ids are made once
// per event, so a retried batch carries the same ids and the server counts it as a duplicate. They lead
// with the second they were made: every accepted event's id is a key of the de-duplication index, and
// keys that arrive in order go near its end, where the pages are hot, instead of anywhere in it (random
// keys touch a page of their own each: five times the cost at four million keys, `npm run bench:keys`).
// Visitor and session ids stay wholly random: they are not index keys the server writes in arrival order.

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-';
/** Base 32 in code-point order, so ids sort by their clock under PostgreSQL's "C" and ICU collations alike. */
const CLOCK = '0123456789abcdefghijklmnopqrstuv';
const CLOCK_DIGITS = 7; // 32^7 seconds: until the year 3058

export function randomId(size = 21): string {
  const bytes = new Uint8Array(size);
  globalThis.crypto.getRandomValues(bytes);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte & 63];
  return id;
}

/** 21 characters: the Unix second `now` falls in as 7 base-32 digits, then 14 random ones (84 bits, so
 *  two events of one second do not collide). Ids made in a later second sort after those of an earlier one. */
export function timeOrderedId(now: number = Date.now()): string {
  let seconds = Math.max(0, Math.floor(now / 1000));
  let clock = '';
  for (let i = 0; i < CLOCK_DIGITS; i++) {
    clock = CLOCK[seconds % 32] + clock;
    seconds = Math.floor(seconds / 32);
  }
  return clock + randomId(21 - CLOCK_DIGITS);
}
