// Random identifiers for events, visitors and sessions. Event ids are made once per event,
// so a retried batch carries the same ids and the server counts it as a duplicate.

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-'

export function randomId(size = 21): string {
  const bytes = new Uint8Array(size)
  globalThis.crypto.getRandomValues(bytes)
  let id = ''
  for (const byte of bytes) id += ALPHABET[byte & 63]
  return id
}
