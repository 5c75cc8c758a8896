// A counter that follows `changes` at most once every `ms`: live pushes can come many times a second,
// and each change here is a read.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';

export function useThrottled(changes: number, ms: number): number {
  const tick = useSignal(0);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (changes === 0 || timer.current !== undefined) return;
    timer.current = setTimeout(
      () => {
        timer.current = undefined;
        last.current = Date.now();
        tick.value++;
      },
      Math.max(0, last.current + ms - Date.now()),
    );
  }, [changes]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return tick.value;
}
