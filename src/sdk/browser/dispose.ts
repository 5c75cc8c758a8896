// One list of undo functions per client, so shutdown() removes every listener and patch it made.
// Running it twice is safe: the list is emptied on the first run.

export type Disposer = {
  listen(target: EventTarget, type: string, fn: (event: Event) => void, options?: AddEventListenerOptions): void;
  add(undo: () => void): void;
  run(): void;
};

export function createDisposer(): Disposer {
  let undos: Array<() => void> = [];
  return {
    listen(target, type, fn, options) {
      target.addEventListener(type, fn, options);
      undos.push(() => target.removeEventListener(type, fn, options));
    },
    add(undo) {
      undos.push(undo);
    },
    run() {
      const pending = undos.reverse();
      undos = [];
      for (const undo of pending) {
        try {
          undo();
        } catch {
          // one failing undo must not leave the others in place
        }
      }
    },
  };
}
