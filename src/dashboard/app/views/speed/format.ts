// How speed numbers read: milliseconds as ms or seconds, CLS without a unit, ratings in words.
/** A metric's value as read: milliseconds as ms or s, CLS without a unit. */
export function metricText(metric: string, value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (metric === 'cls') return value.toFixed(3);
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}

export const ratingText = (r: string | null | undefined) =>
  r === 'good' ? 'Good' : r === 'needs-improvement' ? 'Needs improvement' : r === 'poor' ? 'Poor' : 'No rating';
