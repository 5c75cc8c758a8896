// The success bodies of the sign-in routes (the session read, sign-in redirects, sign-out) and of the
// members routes; see responses.ts for how these schemas are used.
import * as v from 'valibot';
import { at, data, maybe, text } from './response-parts.ts';

const role = v.picklist(['owner', 'admin', 'analyst', 'viewer']);

export const authSessionResponse = v.object({
  user: maybe(v.object({ id: text, login: text, name: maybe(text), avatarUrl: maybe(text) })),
  session: maybe(v.object({ expiresAt: at })),
  role: maybe(role),
  isAdmin: v.boolean(),
});

/** A redirect's body: none; the Location header names where the browser goes next. */
export const redirectBody = v.pipe(
  v.literal(''),
  v.description('Empty: the Location header names where to go; Set-Cookie carries the flow or session cookie.'),
);

export const signedOutResponse = v.object({
  signedOut: v.pipe(v.boolean(), v.description('false: the request named no session.')),
});

const member = v.object({
  id: text,
  login: text,
  name: maybe(text),
  avatarUrl: maybe(text),
  role,
  projectIds: v.pipe(maybe(v.array(text)), v.description('null: every project (always null for an owner).')),
  createdAt: at,
  lastSeenAt: maybe(at),
});
export const membersResponse = data(v.array(member));
export const memberResponse = data(member);
export const memberRemovedResponse = data(v.object({ id: text, login: text, removed: v.literal(true) }));
