// Which issue an error event belongs to: parse its (already scrubbed) stack, fingerprint it, and name
// the issue after the fingerprint. Bot (score ≥ 50) and localhost errors are stored but open no issue.
import { createHash } from 'node:crypto';
import { fingerprint } from '../errors/grouping.ts';
import { findFrame } from '../errors/stack-parser.ts';
import { createMemo } from './memo.ts';

export type IssueRef = { issue_id: string; issue_title: string; issue_culprit: string; issue_type: string; issue_level: string };

export function issueFor(props: Record<string, unknown>, botScore: number, isLocalhost: boolean): IssueRef | null {
  if (botScore >= 50 || isLocalhost) return null;
  const type = typeof props.type === 'string' && props.type ? props.type : 'Error';
  const message = typeof props.message === 'string' ? props.message : null;
  const stack = typeof props.stack === 'string' ? props.stack : null;
  // The same error repeats across visitors: its stack is parsed and fingerprinted once. Keyed by the stack
  // (no copy of it); an entry made for another type or message is simply made again.
  let hit = memo(stack ?? '', () => group(type, message, stack));
  if (hit.type !== type || hit.message !== message) hit = group(type, message, stack);
  return {
    issue_id: hit.issue_id, issue_title: hit.issue_title, issue_culprit: hit.issue_culprit,
    issue_type: type,
    issue_level: typeof props.level === 'string' && /^(fatal|error|warning|info|debug)$/.test(props.level) ? props.level : 'error',
  };
}

type Group = Pick<IssueRef, 'issue_id' | 'issue_title' | 'issue_culprit'> & { type: string; message: string | null };
const memo = createMemo<Group>(2_000);

function group(type: string, message: string | null, stack: string | null): Group {
  // Grouping keys on the top in-app frame only: the stack is parsed down to it, no further.
  const top = findFrame(stack, (f) => f.inApp && f.file !== null);
  const fp = fingerprint({ type, message, frames: top ? [top] : [] });
  // The id is derived from the fingerprint, so every process names the same issue the same way.
  return { type, message, issue_id: `iss_${createHash('sha256').update(fp.key).digest('base64url').slice(0, 16)}`, issue_title: fp.title || type, issue_culprit: fp.culprit };
}
