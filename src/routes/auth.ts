// Who is signed in: the session read a dashboard uses on load. The signed-out shape is fixed by the spec.
import { route } from './route.ts';
import { iso } from './schemas.ts';
import { authSessionResponse } from './responses-members.ts';

export const authRoutes = [
  route({
    method: 'GET',
    path: '/v2/auth/session',
    response: authSessionResponse,
    access: 'public',
    tag: 'Authentication',
    summary: 'The signed-in member, their session and role; user, session and role are null when signed out.',
    handler({ caller }) {
      const m = caller.sessionMember;
      if (!m) return { user: null, session: null, role: null, isAdmin: false };
      return {
        user: { id: m.userId, login: m.login, name: m.name, avatarUrl: m.avatarUrl },
        session: { expiresAt: iso(m.sessionExpiresAt) },
        role: m.role,
        isAdmin: m.role === 'owner' || m.role === 'admin',
      };
    },
  }),
];
