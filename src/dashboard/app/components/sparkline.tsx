// A tiny line chart in SVG for a list row: no axes, scaled to its own maximum.
export function Sparkline({ values, label }: { values: number[]; label: string }) {
  if (values.length < 2) return <svg class="spark" role="img" aria-label={`${label}: no data`} viewBox="0 0 100 24" />;
  const max = Math.max(...values, 1);
  const step = 100 / (values.length - 1);
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(22 - (v / max) * 20).toFixed(1)}`).join(' ');
  return (
    <svg class="spark" role="img" aria-label={label} viewBox="0 0 100 24" preserveAspectRatio="none">
      <polyline
        points={points}
        fill="none"
        stroke="currentColor"
        stroke-width="1.5"
        vector-effect="non-scaling-stroke"
      />
    </svg>
  );
}
