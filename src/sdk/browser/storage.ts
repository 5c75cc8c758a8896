// Key-value persistence for the visitor id, session and offline queue: localStorage when allowed and
// working (private modes throw), else memory. Never throws to the caller.

export type Store = {
  readonly persistent: boolean;
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
};

export function createStore(win: Window, persistence: 'localStorage' | 'memory'): Store {
  if (persistence === 'localStorage') {
    const local = localStore(win);
    if (local) return local;
  }
  return memoryStore();
}

export function memoryStore(): Store {
  const map = new Map<string, string>();
  return {
    persistent: false,
    get: (key) => map.get(key) ?? null,
    set: (key, value) => void map.set(key, value),
    remove: (key) => void map.delete(key),
  };
}

function localStore(win: Window): Store | null {
  let storage: Storage;
  try {
    storage = win.localStorage;
    const probe = '__loupe_probe__';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
  } catch {
    return null;
  }
  return {
    persistent: true,
    get: (key) => attempt(() => storage.getItem(key), null),
    set: (key, value) => attempt(() => storage.setItem(key, value), undefined),
    remove: (key) => attempt(() => storage.removeItem(key), undefined),
  };
}

function attempt<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback; // quota exceeded or storage revoked: keep going without it
  }
}
