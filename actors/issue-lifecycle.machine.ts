// The issue lifecycle (spec "States and transitions", DESIGN "Issue lifecycle"): the single source of
// truth for which status changes are allowed. Imports only xstate; the caller persists the result.
// resolvedAt is set only while resolved; isRegression is set by an occurrence on a resolved issue and
// cleared by a reopen; resolve and ignore leave it as it was.
import { assertEvent, assign, setup, transition } from 'xstate';

export type IssueStatus = 'open' | 'resolved' | 'ignored';
export type IssueState = { status: IssueStatus; isRegression: boolean; resolvedAt: string | null };
export type IssueEvent =
  { type: 'resolve'; at: string } | { type: 'ignore' } | { type: 'reopen' } | { type: 'occurrence'; at: string };

export type Decision = { ok: true; next: IssueState } | { ok: false; reason: string };

export const issueLifecycleMachine = setup({
  types: {
    context: {} as IssueState,
    events: {} as IssueEvent,
    input: {} as IssueState | undefined,
  },
  actions: {
    stampResolved: assign({
      resolvedAt: ({ event }) => {
        assertEvent(event, 'resolve');
        return event.at;
      },
    }),
    clearResolved: assign({ resolvedAt: null }),
    clearRegression: assign({ isRegression: false }),
    markRegression: assign({ isRegression: true }),
    enterOpen: assign({ status: 'open' as const }),
    enterResolved: assign({ status: 'resolved' as const }),
    enterIgnored: assign({ status: 'ignored' as const }),
  },
}).createMachine({
  id: 'issueLifecycle',
  initial: 'open',
  context: ({ input }) => input ?? { status: 'open', isRegression: false, resolvedAt: null },
  states: {
    open: {
      entry: 'enterOpen',
      on: {
        resolve: { target: 'resolved', actions: 'stampResolved' },
        ignore: { target: 'ignored' },
        // Counted by the caller; listed so the machine accepts it (a targetless, action-less
        // transition would read as "not handled").
        occurrence: { target: 'open' },
      },
    },
    resolved: {
      entry: 'enterResolved',
      exit: 'clearResolved',
      on: {
        ignore: { target: 'ignored' },
        reopen: { target: 'open', actions: 'clearRegression' },
        occurrence: { target: 'open', actions: 'markRegression' },
      },
    },
    ignored: {
      entry: 'enterIgnored',
      on: {
        reopen: { target: 'open', actions: 'clearRegression' },
        occurrence: { target: 'ignored' }, // DESIGN: an ignored issue stays ignored (it still counts)
      },
    },
  },
});

// Runs the machine from a stored issue; refuses what the machine does not handle.
export function decideTransition(current: IssueState, event: IssueEvent): Decision {
  const snapshot = issueLifecycleMachine.resolveState({ value: current.status, context: current });
  if (!snapshot.can(event)) return { ok: false, reason: refusal(current.status, event) };
  const [next] = transition(issueLifecycleMachine, snapshot, event);
  const { status, isRegression, resolvedAt } = next.context;
  return { ok: true, next: { status, isRegression, resolvedAt } };
}

// PATCH {status} → the event that asks for it.
export function eventForStatus(status: IssueStatus, at: string): IssueEvent {
  if (status === 'resolved') return { type: 'resolve', at };
  if (status === 'ignored') return { type: 'ignore' };
  return { type: 'reopen' };
}

const ASKED: Record<IssueEvent['type'], { status: IssueStatus; verb: string }> = {
  resolve: { status: 'resolved', verb: 'resolved' },
  ignore: { status: 'ignored', verb: 'ignored' },
  reopen: { status: 'open', verb: 'reopened' },
  occurrence: { status: 'open', verb: 'counted' },
};

function refusal(status: IssueStatus, event: IssueEvent): string {
  const asked = ASKED[event.type];
  if (asked.status === status) return `Issue is already ${status}.`;
  return `Issue is ${status}; it cannot be ${asked.verb}. Reopen it first.`;
}
