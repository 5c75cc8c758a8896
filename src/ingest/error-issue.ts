// Which issue an error event belongs to: parse its (already scrubbed) stack, fingerprint it, and name
// the issue after the fingerprint. Bot (score ≥ 50) and localhost errors are stored but open no issue.
import { createHash } from 'node:crypto';
import { fingerprint } from '../errors/grouping.ts';
import { parseStack } from '../errors/stack-parser.ts';

export type IssueRef = { issue_id: string; issue_title: string; issue_culprit: string; issue_type: string; issue_level: string };

export function issueFor(props: Record<string, unknown>, botScore: number, isLocalhost: boolean): IssueRef | null {
  if (botScore >= 50 || isLocalhost) return null;
  const type = typeof props.type === 'string' && props.type ? props.type : 'Error';
  const message = typeof props.message === 'string' ? props.message : null;
  const fp = fingerprint({ type, message, frames: parseStack(typeof props.stack === 'string' ? props.stack : null) });
  return {
    // The id is derived from the fingerprint, so every process names the same issue the same way.
    issue_id: `iss_${createHash('sha256').update(fp.key).digest('base64url').slice(0, 16)}`,
    issue_title: fp.title || type,
    issue_culprit: fp.culprit,
    issue_type: type,
    issue_level: typeof props.level === 'string' && /^(fatal|error|warning|info|debug)$/.test(props.level) ? props.level : 'error',
  };
}
