// The "Projects" choice of the member and token forms: this project only, or every project.
import type { Signal } from '@preact/signals';

export function ProjectsPicker({ only }: { only: Signal<boolean> }) {
  return (
    <label>
      Projects
      <select
        value={only.value ? 'one' : 'all'}
        onChange={(e) => (only.value = (e.currentTarget as HTMLSelectElement).value === 'one')}
      >
        <option value="one">This project only</option>
        <option value="all">All projects</option>
      </select>
    </label>
  );
}
