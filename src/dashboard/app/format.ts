// How numbers read on screen: compact counts, percentages, durations and signed changes.
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');

export function count(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Math.abs(n) >= 10_000 ? compact.format(n) : whole.format(Math.round(n * 100) / 100);
}

export const percent = (ratio: number | null | undefined, digits = 0) =>
  ratio === null || ratio === undefined || !Number.isFinite(ratio) ? '–' : `${(ratio * 100).toFixed(digits)}%`;

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

export function change(ratio: number | null | undefined, value = 0): { text: string; tone: 'up' | 'down' | 'flat' } {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio))
    return { text: value > 0 ? 'new' : '–', tone: 'flat' };
  const pct = Math.round(ratio * 100);
  if (pct === 0) return { text: '0%', tone: 'flat' };
  return { text: `${pct > 0 ? '+' : '−'}${Math.abs(pct)}%`, tone: pct > 0 ? 'up' : 'down' };
}

const regionNames = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'region' }) : null;

export function countryName(code: string): string {
  try {
    return (/^[A-Z]{2}$/.test(code) && regionNames?.of(code)) || code;
  } catch {
    return code;
  }
}

/** A headline number as shown: rates as percentages, durations as minutes and seconds. */
export function statText(key: string, v: number): string {
  if (key === 'bounceRate') return percent(v);
  if (key === 'sessionDurationMs') return duration(v);
  if (key === 'pagesPerSession') return v.toFixed(2);
  return count(v);
}
