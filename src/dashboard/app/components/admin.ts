// Whether to offer an admin's action: a pasted token (its scope is not known to the page) or a signed-in
// owner or admin. The API decides in the end, and a refusal shows its message.
import { token } from '../api.ts';
import { session } from '../auth.ts';

export function canTryAdmin(): boolean {
  if (token.value) return true;
  return Boolean(session.value?.user && session.value.isAdmin);
}
