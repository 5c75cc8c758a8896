// The vitals plugin: Web Vitals from web-vitals/attribution become `speed` events, one per metric,
// on the page the visit landed on (where LCP, FCP and TTFB were measured), with the LCP element,
// INP target or largest CLS shift target as `vitals.element`.
import { onCLS, onFCP, onINP, onLCP, onTTFB } from 'web-vitals/attribution';
import type { MetricWithAttribution } from 'web-vitals/attribution';
import type { PageInfo, Vitals } from '../event.ts';
import type { Plugin } from './types.ts';

export function vitals(): Plugin {
  return {
    name: 'vitals',
    setup(client) {
      // web-vitals has no unsubscribe; the flag silences its callbacks after shutdown().
      let active = true;
      const landing: PageInfo = client.currentPage();
      const report = (metric: MetricWithAttribution) => {
        if (!active || client.closed) return;
        client.send('speed', { page: landing, vitals: toVitals(metric) });
      };
      onLCP(report);
      onINP(report);
      onCLS(report);
      onFCP(report);
      onTTFB(report);
      return () => {
        active = false;
      };
    },
  };
}

export function toVitals(metric: MetricWithAttribution): Vitals {
  switch (metric.name) {
    case 'LCP':
      return withElement({ lcp: Math.round(metric.value) }, metric.attribution.target);
    case 'INP':
      return withElement({ inp: Math.round(metric.value) }, metric.attribution.interactionTarget);
    case 'CLS':
      return withElement({ cls: Math.round(metric.value * 10_000) / 10_000 }, metric.attribution.largestShiftTarget);
    case 'FCP':
      return { fcp: Math.round(metric.value) };
    case 'TTFB':
      return { ttfb: Math.round(metric.value) };
  }
}

function withElement(vitals: Vitals, element: string | undefined): Vitals {
  if (element) vitals.element = element.slice(0, 500);
  return vitals;
}
