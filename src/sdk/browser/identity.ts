// Who is sending: the persistent anonymous visitor id, the session (30 minutes of inactivity ends it,
// matching the server), and what identify/group/setExperiment set, all kept in the store.
import type { LoupeEvent, Props } from '../event.ts';
import { randomId } from '../ids.ts';
import type { Store } from './storage.ts';

const SESSION_IDLE_MS = 30 * 60_000;

type Context = Pick<LoupeEvent, 'user' | 'groups' | 'experiments'>;

export type Identity = {
  visitor: string;
  /** The session id; `extend` false (engagement) reads it without starting or extending one. */
  session(now: number, extend: boolean): string | undefined;
  context(): Context;
  identify(userId: string | null, traits?: Props): void;
  group(type: string, id: string | null): void;
  setExperiment(name: string, variant: string | null): void;
};

export function createIdentity(store: Store): Identity {
  const visitor = store.get('loupe.visitor') ?? newVisitor();
  let context: Context = readJson(store.get('loupe.context')) ?? {};
  let session: { id: string; last: number } | null = readJson(store.get('loupe.session'));

  return {
    visitor,
    session(now, extend) {
      if (!extend) return session && now - session.last < SESSION_IDLE_MS ? session.id : undefined;
      if (!session || now - session.last >= SESSION_IDLE_MS) session = { id: randomId(), last: now };
      else session.last = now;
      store.set('loupe.session', JSON.stringify(session));
      return session.id;
    },
    context: () => context,
    identify(userId, traits) {
      const { user: _user, ...rest } = context;
      context = userId === null ? rest : { ...rest, user: traits ? { id: userId, traits } : { id: userId } };
      save();
    },
    group(type, id) {
      context = { ...context, groups: setKey(context.groups, type, id) };
      save();
    },
    setExperiment(name, variant) {
      context = { ...context, experiments: setKey(context.experiments, name, variant) };
      save();
    },
  };

  function newVisitor(): string {
    const id = randomId();
    store.set('loupe.visitor', id);
    return id;
  }

  function save(): void {
    store.set('loupe.context', JSON.stringify(context));
  }
}

function setKey(
  map: Record<string, string> | undefined,
  key: string,
  value: string | null,
): Record<string, string> | undefined {
  const next = { ...map };
  if (value === null) delete next[key];
  else next[key] = value;
  return Object.keys(next).length > 0 ? next : undefined;
}

function readJson<T>(raw: string | null): T | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}
