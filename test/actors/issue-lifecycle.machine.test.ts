import t from 'tap';
import { createActor } from 'xstate';
import {
  decideTransition,
  eventForStatus,
  issueLifecycleMachine,
  type IssueState,
} from '../../actors/issue-lifecycle.machine.ts';

const AT = '2025-03-01T10:00:00.000Z';
const OLD = '2025-02-01T10:00:00.000Z';
const open: IssueState = { status: 'open', isRegression: false, resolvedAt: null };
const regression: IssueState = { status: 'open', isRegression: true, resolvedAt: null };
const resolved: IssueState = { status: 'resolved', isRegression: false, resolvedAt: OLD };
const ignored: IssueState = { status: 'ignored', isRegression: false, resolvedAt: null };

t.test('allowed transitions', async (t) => {
  t.same(
    decideTransition(open, { type: 'resolve', at: AT }),
    { ok: true, next: { status: 'resolved', isRegression: false, resolvedAt: AT } },
    'open → resolved stamps resolvedAt',
  );
  t.same(decideTransition(open, { type: 'ignore' }), { ok: true, next: ignored }, 'open → ignored');
  t.same(
    decideTransition(resolved, { type: 'ignore' }),
    { ok: true, next: ignored },
    'resolved → ignored clears resolvedAt',
  );
  t.same(
    decideTransition(resolved, { type: 'reopen' }),
    { ok: true, next: open },
    'resolved → open by hand is no regression',
  );
  t.same(decideTransition(ignored, { type: 'reopen' }), { ok: true, next: open }, 'ignored → open');
  t.same(
    decideTransition({ ...regression, status: 'ignored' }, { type: 'reopen' }),
    { ok: true, next: open },
    'reopen clears isRegression',
  );
});

t.test('occurrences', async (t) => {
  t.same(
    decideTransition(resolved, { type: 'occurrence', at: AT }),
    { ok: true, next: regression },
    'resolved → open as a regression',
  );
  t.same(decideTransition(open, { type: 'occurrence', at: AT }), { ok: true, next: open }, 'open stays open');
  t.same(
    decideTransition(regression, { type: 'occurrence', at: AT }),
    { ok: true, next: regression },
    'a regression stays one',
  );
  t.same(
    decideTransition(ignored, { type: 'occurrence', at: AT }),
    { ok: true, next: ignored },
    'ignored stays ignored',
  );
});

t.test('refused transitions', async (t) => {
  t.same(decideTransition(ignored, { type: 'resolve', at: AT }), {
    ok: false,
    reason: 'Issue is ignored; it cannot be resolved. Reopen it first.',
  });
  t.same(decideTransition(resolved, { type: 'resolve', at: AT }), { ok: false, reason: 'Issue is already resolved.' });
  t.same(decideTransition(ignored, { type: 'ignore' }), { ok: false, reason: 'Issue is already ignored.' });
  t.same(decideTransition(open, { type: 'reopen' }), { ok: false, reason: 'Issue is already open.' });
});

t.test('eventForStatus maps a PATCH body to an event', async (t) => {
  t.same(eventForStatus('resolved', AT), { type: 'resolve', at: AT });
  t.same(eventForStatus('ignored', AT), { type: 'ignore' });
  t.same(eventForStatus('open', AT), { type: 'reopen' });
  t.same(decideTransition(open, eventForStatus('resolved', AT)), {
    ok: true,
    next: { status: 'resolved', isRegression: false, resolvedAt: AT },
  });
});

t.test('the machine runs as an actor too, keeping status in step with its state', async (t) => {
  const actor = createActor(issueLifecycleMachine, { input: open }).start();
  actor.send({ type: 'resolve', at: AT });
  t.equal(actor.getSnapshot().value, 'resolved');
  t.same(actor.getSnapshot().context, { status: 'resolved', isRegression: false, resolvedAt: AT });
  actor.send({ type: 'occurrence', at: AT });
  t.equal(actor.getSnapshot().value, 'open');
  t.same(actor.getSnapshot().context, regression);
  actor.send({ type: 'ignore' });
  actor.send({ type: 'resolve', at: AT });
  t.equal(actor.getSnapshot().value, 'ignored', 'an unhandled event changes nothing');
  actor.stop();
});
