// useLoad: runs a read when its key changes (dropping the answer of one that was overtaken) and keeps the
// last data while the next loads, so numbers do not blink on refresh. A new `tick` (a live push) or
// `reload` re-runs it in place.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export type Loaded<T> = { data: T | null; error: Error | null; loading: boolean; reload: () => void };

export function useLoad<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>, tick = 0): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: Error | null; loading: boolean; forKey: string | null }>({
    data: null,
    error: null,
    loading: key !== null,
    forKey: null,
  });
  const [own, setOwn] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    if (key === null) return;
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true, ...(s.forKey === key ? {} : { data: null, error: null }) }));
    loader
      .current(ctl.signal)
      .then((data) => !ctl.signal.aborted && setState({ data, error: null, loading: false, forKey: key }))
      .catch((error: Error) => {
        if (!ctl.signal.aborted && error.name !== 'AbortError')
          setState({ data: null, error, loading: false, forKey: key });
      });
    return () => ctl.abort();
  }, [key, tick, own]);
  const reload = useCallback(() => setOwn((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
