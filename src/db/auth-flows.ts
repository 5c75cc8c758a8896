// Sign-ins in progress (auth_flows): recorded when one starts, taken (deleted) by its callback.
import type { Sql } from 'postgres';
import { hashSecret } from '../secrets.ts';
import { query } from './queries.ts';

/** What a code flow must check when it returns: kept with the flow, taken once. */
export type FlowChecks = { state: string; nonce: string; codeVerifier: string };
export type PendingFlow = FlowChecks & { redirect: string };

/** `flowToken` is the flow cookie's value; only its hash is stored. */
export async function recordFlow(sql: Sql, flowToken: string, flow: PendingFlow, expiresAt: Date) {
  await query(sql, 'insert_auth_flow', [
    hashSecret(flowToken),
    flow.state,
    flow.nonce,
    flow.codeVerifier,
    flow.redirect,
    expiresAt,
  ]);
}

/** The flow the cookie names, once: a second call (a replayed callback) finds nothing. */
export async function takeFlow(sql: Sql, flowToken: string): Promise<PendingFlow | undefined> {
  const [row] = await query<{ state: string; nonce: string; code_verifier: string; redirect: string }>(
    sql,
    'take_auth_flow',
    [hashSecret(flowToken)],
  );
  return row && { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier, redirect: row.redirect };
}
