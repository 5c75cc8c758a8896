// The theme follows the system (prefers-color-scheme): the CSS does the colours; this signal lets
// canvas drawings (charts) redraw when it flips.
import { signal } from '@preact/signals';

const query = matchMedia('(prefers-color-scheme: dark)');
export const dark = signal(query.matches);
query.addEventListener('change', (e) => (dark.value = e.matches));
