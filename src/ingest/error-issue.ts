// Which issue an error event belongs to: parse its (already scrubbed) stack, fingerprint it, and name
// the issue after the fingerprint. Bot (score ≥ 50) and localhost errors are stored but open no issue.
import { createHash } from 'node:crypto';
import { fingerprint } from '../error-tracking/grouping.ts';
import { findFrame, type Frame } from '../error-tracking/stack-parser.ts';
import { createMemo } from '../memo.ts';

export type IssueRef = {
  issue_id: string;
  issue_title: string;
  issue_culprit: string;
  issue_type: string;
  issue_level: string;
};

export function issueFor(props: Record<string, unknown>, botScore: number, isLocalhost: boolean): IssueRef | null {
  if (botScore >= 50 || isLocalhost) return null;
  const type = typeof props.type === 'string' && props.type ? props.type : 'Error';
  const message = typeof props.message === 'string' ? props.message : null;
  const stack = typeof props.stack === 'string' ? props.stack : null;
  // The same error repeats across visitors: its stack is parsed once (keyed by the stack itself, no copy
  // of it), and its issue is fingerprinted once per type, message and top in-app frame, which stacks that
  // differ further down (other callers, other columns) share. NUL cannot occur in the key's parts (such
  // events are rejected at validation), so it separates them unambiguously.
  const top = frames(stack ?? '', () => findFrame(stack, (f) => f.inApp && f.file !== null) ?? NO_FRAME);
  const hit = groups(`${type}\u0000${message ?? ''}\u0000${top.file ?? ''}\u0000${top.function ?? ''}`, () =>
    group(type, message, top),
  );
  return {
    issue_id: hit.issue_id,
    issue_title: hit.issue_title,
    issue_culprit: hit.issue_culprit,
    issue_type: type,
    issue_level:
      typeof props.level === 'string' && /^(fatal|error|warning|info|debug)$/.test(props.level) ? props.level : 'error',
  };
}

type Group = Pick<IssueRef, 'issue_id' | 'issue_title' | 'issue_culprit'>;
const NO_FRAME: Frame = Object.freeze({ file: null, line: null, column: null, function: null, inApp: false });
const frames = createMemo<Frame>(2_000);
const groups = createMemo<Group>(2_000);

function group(type: string, message: string | null, top: Frame): Group {
  const fp = fingerprint({ type, message, frames: top === NO_FRAME ? [] : [top] });
  // The id is derived from the fingerprint, so every process names the same issue the same way.
  return {
    issue_id: `iss_${createHash('sha256').update(fp.key).digest('base64url').slice(0, 16)}`,
    issue_title: fp.title || type,
    issue_culprit: fp.culprit,
  };
}
