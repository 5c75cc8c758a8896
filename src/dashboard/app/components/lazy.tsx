// Renders a view from its chunk, loading it on first use; a chunk that fails to load (a new deploy
// replaced it) says so and offers a reload.
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Loading } from './notes.tsx';

const loaded = new Map<() => Promise<unknown>, FunctionComponent<any>>();

export function Lazy<P extends object>({
  load,
  props,
}: {
  load: () => Promise<{ default: FunctionComponent<P> }>;
  props: P;
}) {
  const [, setDone] = useState(0);
  const [failed, setFailed] = useState(false);
  const View = loaded.get(load) as FunctionComponent<P> | undefined;
  useEffect(() => {
    if (View) return;
    let live = true;
    load()
      .then((m) => {
        loaded.set(load, m.default);
        if (live) setDone((n) => n + 1);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [load, View]);
  if (failed)
    return (
      <p class="note error" role="alert">
        This view could not be loaded. <button onClick={() => location.reload()}>Reload the page</button>
      </p>
    );
  return View ? <View {...props} /> : <Loading />;
}
