// Adds one filter: a dimension, is or is not, and a value; it becomes the API's filter[dimension]=value
// (=!value to leave those out) in the address, beside the chips it shows as.
import { useSignal } from '@preact/signals';

const DIMENSIONS: [string, string][] = [
  ['page', 'Page'],
  ['entry_page', 'Entry page'],
  ['country', 'Country (code)'],
  ['city', 'City'],
  ['browser', 'Browser'],
  ['os', 'Operating system'],
  ['device', 'Device type'],
  ['referrer_domain', 'Referrer'],
  ['channel', 'Channel'],
  ['utm_source', 'UTM source'],
  ['utm_campaign', 'UTM campaign'],
  ['event', 'Event name'],
  ['release', 'Release'],
];

export function FilterForm({ onAdd }: { onAdd: (dimension: string, value: string) => void }) {
  const dim = useSignal('page');
  const not = useSignal(false);
  const value = useSignal('');
  return (
    <form
      class="row-form filter-form"
      aria-label="Add a filter"
      onSubmit={(e) => {
        e.preventDefault();
        const v = value.value.trim();
        if (!v) return;
        onAdd(dim.value, not.value ? `!${v}` : v);
        value.value = '';
      }}
    >
      <label>
        Filter by
        <select value={dim.value} onChange={(e) => (dim.value = (e.currentTarget as HTMLSelectElement).value)}>
          {DIMENSIONS.map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Match
        <select
          value={not.value ? 'not' : 'is'}
          onChange={(e) => (not.value = (e.currentTarget as HTMLSelectElement).value === 'not')}
        >
          <option value="is">is</option>
          <option value="not">is not</option>
        </select>
      </label>
      <label>
        Value
        <input
          value={value.value}
          maxLength={200}
          onInput={(e) => (value.value = (e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Add filter</button>
    </form>
  );
}
