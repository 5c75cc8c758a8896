// The scoring against known Lighthouse values: at each curve's control points p10 scores 90 and the
// median 50 (mobile and desktop), ratings at the web-vitals thresholds, bands, weights, ttfb unscored.
import t from 'tap';
import { band, lighthouse, metricScore, pageScore, rate } from '../../../src/query/speed/score.ts';

const CONTROL = {
  mobile: { fcp: [1800, 3000], lcp: [2500, 4000], inp: [200, 500], cls: [0.1, 0.25] },
  desktop: { fcp: [934, 1600], lcp: [1200, 2400], inp: [200, 500], cls: [0.1, 0.25] },
} as const;

t.test('p10 → 90 and median → 50 on every curve', async (t) => {
  for (const curves of ['mobile', 'desktop'] as const)
    for (const [metric, [p10, median]] of Object.entries(CONTROL[curves]) as [
      keyof typeof CONTROL.mobile,
      number[],
    ][]) {
      t.equal(Math.round(100 * metricScore(metric, p10!, curves)!), 90, `${curves} ${metric} p10`);
      t.equal(Math.round(100 * metricScore(metric, median!, curves)!), 50, `${curves} ${metric} median`);
      t.ok(metricScore(metric, p10! * 0.5, curves)! > 0.9, 'better than p10 scores above 90');
      t.ok(metricScore(metric, median! * 2, curves)! < 0.5, 'worse than the median scores below 50');
    }
  // Lighthouse's own log-normal values (lighthouse-core statistics tests): the curve crosses 0.9 and 0.5
  // exactly, and a value of 0 scores 1.
  t.ok(Math.abs(lighthouse(2500, 2500, 4000) - 0.9) < 1e-6);
  t.ok(Math.abs(lighthouse(4000, 2500, 4000) - 0.5) < 1e-6);
  t.equal(lighthouse(0, 2500, 4000), 1);
  t.ok(lighthouse(100_000, 2500, 4000) < 0.01, 'far past the median nears 0');
});

t.test('ratings at the web-vitals thresholds, bands, ttfb unscored', async (t) => {
  t.same(
    [rate('lcp', 2500), rate('lcp', 2501), rate('lcp', 4000), rate('lcp', 4001)],
    ['good', 'needs-improvement', 'needs-improvement', 'poor'],
  );
  t.same([rate('cls', 0.1), rate('cls', 0.25), rate('cls', 0.2501)], ['good', 'needs-improvement', 'poor']);
  t.same([rate('inp', 200), rate('fcp', 1801), rate('ttfb', 1801)], ['good', 'needs-improvement', 'poor']);
  t.same([band(90), band(89), band(50), band(49)], ['good', 'needs-improvement', 'needs-improvement', 'poor']);
  t.equal(metricScore('ttfb', 100, 'mobile'), null);
});

t.test('the page score weighs FCP 15, LCP 30, INP 30, CLS 25 over the metrics with samples', async (t) => {
  // p75 on control points: LCP median (50), FCP p10 (90), INP p10 (90), CLS median (50).
  t.equal(pageScore({ lcp: 4000, fcp: 1800, inp: 200, cls: 0.25, ttfb: 9000 }, 'mobile'), 68);
  t.equal(pageScore({ lcp: 4000, inp: 200 }, 'mobile'), 70, 'only LCP and INP, 30 each');
  t.equal(pageScore({ lcp: 2400 }, 'desktop'), 50, 'desktop curves');
  t.equal(pageScore({ ttfb: 100 }, 'mobile'), null, 'ttfb alone gives no score');
  t.equal(pageScore({}, 'mobile'), null);
});
