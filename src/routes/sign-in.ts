// Browser sign-in with the identity provider: start (PKCE, state, nonce, a flow cookie binding it to this
// browser), callback (checks, members only, a 30-day sliding session cookie), sign-out.
import * as v from 'valibot';
import { randomBytes } from 'node:crypto';
import {
  FLOW_SECONDS,
  clearFlowCookie,
  clearSessionCookie,
  cookieSettings,
  flowCookie,
  flowCookieValue,
  sessionCookie,
} from '../auth/cookies.ts';
import { sessionCookie as sessionCookieValue } from '../auth/credentials.ts';
import { signInTarget } from '../auth/redirect.ts';
import { safeEqual } from '../secrets.ts';
import type { Config } from '../config.ts';
import { recordFlow, takeFlow } from '../db/auth-flows.ts';
import { endSession, findMemberByLogin, recordSignIn, startSession } from '../db/members.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { redirectBody, signedOutResponse } from './responses-members.ts';
import { reply, route } from './route.ts';

const SignInQuery = v.object({ redirect: v.optional(v.string()) });
// The provider's answer: code and state, or error; other parameters (iss, session_state) are passed on.
const CallbackQuery = v.record(v.string(), v.string());

export const signInRoutes = [
  route({
    method: 'GET',
    path: '/v2/auth/signin',
    status: 302,
    response: redirectBody,
    responseType: 'text/plain',
    access: 'public',
    tag: 'Authentication',
    summary:
      'Start browser sign-in with the identity provider (OpenID Connect, code flow with PKCE). redirect: a path, ' +
      'or a URL on DASHBOARD_ORIGIN, to land on afterwards (default /). 404 when no provider is configured.',
    query: SignInQuery,
    responses: { 302: 'To the identity provider; sets a short-lived flow cookie.' },
    async handler({ query, headers, services }) {
      const provider = services.signIn;
      if (!provider) throw notFound('No identity provider is configured (OIDC_ISSUER): use an API token.');
      const { config } = services;
      const target = signInTarget(query.redirect, apiOrigin(config, headers), config.dashboardOrigin);
      const { url, checks } = await provider.start(callbackUri(config, headers));
      const flowToken = randomBytes(32).toString('base64url');
      await recordFlow(
        services.sql,
        flowToken,
        { ...checks, redirect: target },
        new Date(Date.now() + FLOW_SECONDS * 1000),
      );
      return reply({
        status: 302,
        headers: { Location: url, 'Cache-Control': 'no-store' },
        cookies: [flowCookie(cookieSettings(config, headers), flowToken)],
      });
    },
  }),
  route({
    method: 'GET',
    path: '/v2/auth/callback',
    status: 302,
    response: redirectBody,
    responseType: 'text/plain',
    access: 'public',
    tag: 'Authentication',
    summary:
      "The identity provider's return: checks state, nonce and PKCE, admits members only (dashboard_users), " +
      'sets the session cookie and sends the browser where sign-in began. 400 for a wrong, used or expired ' +
      'sign-in; 403 for a login that is not a member.',
    query: CallbackQuery,
    responses: { 302: 'To the redirect given to /v2/auth/signin, with the session cookie set.' },
    async handler({ query, headers, services }) {
      const provider = services.signIn;
      if (!provider) throw notFound('No identity provider is configured (OIDC_ISSUER).');
      const { config, sql } = services;
      const flowToken = flowCookieValue(headers.cookie, config.cookiePrefix);
      if (!flowToken)
        throw badRequest('No sign-in was started in this browser (or it took over 10 minutes): start again.');
      const flow = await takeFlow(sql, flowToken);
      if (!flow) throw badRequest('This sign-in has expired or was already used: start again.');
      if (query.error)
        throw badRequest(`The identity provider refused the sign-in: ${query.error_description ?? query.error}.`);
      if (!query.state || !safeEqual(query.state, flow.state))
        throw badRequest('The sign-in state does not match: start again.');
      const redirectUri = callbackUri(config, headers);
      const identity = await provider.finish(
        new URL(`${redirectUri}?${new URLSearchParams(query)}`),
        redirectUri,
        flow,
      );
      const member = await findMemberByLogin(sql, identity.login);
      if (!member) {
        services.log.info('sign-in refused: not a member', { login: identity.login });
        throw forbidden(`${identity.login} is not a member of this Loupe. An owner can add them (/v2/members).`);
      }
      await recordSignIn(sql, member.id, identity.name, identity.avatarUrl);
      const { token } = await startSession(sql, member.id);
      services.log.info('signed in', { login: member.login, role: member.role });
      const cookies = cookieSettings(config, headers);
      return reply({
        status: 302,
        headers: { Location: flow.redirect, 'Cache-Control': 'no-store' },
        cookies: [sessionCookie(cookies, token), clearFlowCookie(cookies)],
      });
    },
  }),
  route({
    method: 'POST',
    path: '/v2/auth/signout',
    response: signedOutResponse,
    access: 'public',
    tag: 'Authentication',
    summary: 'End the session the cookie names and clear the cookie. Answers {signedOut} (false: there was none).',
    async handler({ headers, services }) {
      const token = sessionCookieValue(headers.cookie, services.config.cookiePrefix);
      const hash = token ? await endSession(services.sql, token) : undefined;
      if (hash) services.credentials.forget(hash);
      return reply({
        status: 200,
        json: { signedOut: hash !== undefined },
        headers: { 'Cache-Control': 'no-store' },
        cookies: [clearSessionCookie(cookieSettings(services.config, headers))],
      });
    },
  }),
];

/** The API's own origin: PUBLIC_URL's, else the scheme and Host of the request. */
export function apiOrigin(config: Config, headers: Record<string, string>): string {
  if (config.publicUrl) return new URL(config.publicUrl).origin;
  const proto = config.trustProxy ? headers['x-forwarded-proto']?.split(',')[0]?.trim() : undefined;
  return `${proto === 'https' ? 'https' : 'http'}://${headers.host ?? 'localhost'}`;
}

/** The redirect URI registered at the provider: <PUBLIC_URL>/v2/auth/callback. */
const callbackUri = (config: Config, headers: Record<string, string>) =>
  `${apiOrigin(config, headers)}/v2/auth/callback`;
