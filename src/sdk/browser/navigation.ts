// SPA navigation: patches history.pushState/replaceState and listens to popstate, calling back after
// the URL changed. The patches are undone on dispose (left as pass-throughs if another script
// wrapped them after us, so we never clobber its wrapper).
import type { Disposer } from './dispose.ts';

export function watchNavigation(win: Window, disposer: Disposer, onChange: () => void): void {
  const history = win.history;
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    let active = true;
    const patched = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      if (active) onChange();
      return result;
    };
    history[method] = patched;
    disposer.add(() => {
      active = false;
      if (history[method] === patched) history[method] = original;
    });
  }
  disposer.listen(win, 'popstate', () => onChange());
}
