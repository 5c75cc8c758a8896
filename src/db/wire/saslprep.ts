// SASLprep (RFC 4013) of a SCRAM password, as PostgreSQL prepares it (src/common/saslprep.c) when it stores
// a role's password and when libpq signs in: an ASCII password as it is; otherwise spaces mapped to U+0020,
// characters "mapped to nothing" dropped, then NFKC. A password that then holds a prohibited or unassigned
// character, or breaks the bidirectional rule, is used as it was given, as PostgreSQL does.
// Unassigned means unassigned in Unicode 3.2 (RFC 3454, table A.1): this reads the engine's current
// Unicode instead, which also knows the characters assigned since; of those, only the supplementary planes'
// are told apart (the code points 3.2 had there are listed below), so a password holding a character the
// Basic Multilingual Plane gained after 3.2 and needing a mapping may not match (docs/sql.md).

/** C.1.2, non-ASCII spaces: mapped to U+0020. */
const SPACES = /[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/gu;
/** B.1: mapped to nothing. */
const NOTHING = /[\u00AD\u034F\u1806\u180B-\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/gu;
/** C.1.2 and C.2.1–C.9: controls, private use, non-characters, surrogates, tags, display changes. */
const PROHIBITED =
  /[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000\u0000-\u001F\u007F-\u009F\u06DD\u070F\u180E\u200C-\u200F\u2028-\u202E\u2060-\u2063\u206A-\u206F\uFEFF\uFFF9-\uFFFD\u{1D173}-\u{1D17A}\uE000-\uF8FF\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}\uFDD0-\uFDEF\u2FF0-\u2FFB\u0340\u0341\u{E0001}\u{E0020}-\u{E007F}]|[\uFFFE\uFFFF\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}]|[\uD800-\uDFFF]/u;
/** Unassigned: today, or in the supplementary planes outside the blocks Unicode 3.2 had there. */
const UNASSIGNED = /\p{Cn}/u;
const SUPPLEMENTARY_3_2 =
  /^[\u{10300}-\u{1034A}\u{10400}-\u{1044D}\u{1D000}-\u{1D1DD}\u{1D400}-\u{1D7FF}\u{20000}-\u{2A6D6}\u{2F800}-\u{2FA1D}\u{E0001}\u{E0020}-\u{E007F}\u{F0000}-\u{10FFFD}]$/u;
/** D.1, right-to-left characters (R and AL). */
const RAND_AL =
  /[\u05BE\u05C0\u05C3\u05D0-\u05EA\u05F0-\u05F4\u061B\u061F\u0621-\u063A\u0640-\u064A\u066D-\u066F\u0671-\u06D5\u06DD\u06E5\u06E6\u06FA-\u06FE\u0700-\u070D\u0710\u0712-\u072C\u0780-\u07A5\u07B1\u200F\uFB1D\uFB1F-\uFB28\uFB2A-\uFB36\uFB38-\uFB3C\uFB3E\uFB40\uFB41\uFB43\uFB44\uFB46-\uFBB1\uFBD3-\uFD3D\uFD50-\uFD8F\uFD92-\uFDC7\uFDF0-\uFDFC\uFE70-\uFE74\uFE76-\uFEFC]/u;

/** The password SCRAM signs with. */
export function saslprep(password: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7F]*$/.test(password)) return password;
  const prepared = password.replace(SPACES, ' ').replace(NOTHING, '').normalize('NFKC');
  const chars = [...prepared];
  if (chars.some((c) => PROHIBITED.test(c) || UNASSIGNED.test(c) || (c.length > 1 && !SUPPLEMENTARY_3_2.test(c))))
    return password;
  // RFC 3454, section 6: a string with a right-to-left character has no left-to-right letter, and starts
  // and ends with right-to-left characters.
  if (chars.some((c) => RAND_AL.test(c))) {
    const leftToRight = chars.some((c) => !RAND_AL.test(c) && /\p{L}/u.test(c));
    if (leftToRight || !RAND_AL.test(chars[0]!) || !RAND_AL.test(chars[chars.length - 1]!)) return password;
  }
  return prepared;
}
