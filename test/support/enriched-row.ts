// A stored-ready event (what enrichment hands the actor) with plain defaults, for tests of the write path.
import type { EnrichedEvent } from '../../src/ingest/enrich.ts';

let n = 0;
const signals = { headless: false, webdriver: null, datacenterAsn: false, pointerEvents: null, uaMismatch: null, uniformDwell: null };

export const enrichedRow = (over: Partial<EnrichedEvent> = {}): EnrichedEvent => {
  const ts = over.ts ?? new Date().toISOString();
  return {
    project_id: 'p', ts, id: `id${++n}`, name: 'pageview', visitor_id: 'v', session_id: '', path: '/', route: null,
    title: null, host: 'example.com', referrer: null, referrer_domain: null, channel: 'Direct', utm_source: null, utm_medium: null,
    utm_campaign: null, utm_term: null, utm_content: null, country: 'DE', region: null, city: null, postal_code: null, timezone: null,
    latitude: null, longitude: null, browser: 'Chrome', browser_version: '131.0', os: 'Windows', os_version: '10', device: 'desktop',
    screen: null, viewport: null, language: null, connection: null, props: {}, groups: {}, user_id: null, traits: {}, experiments: {},
    release: null, environment: 'production', is_internal: false, is_localhost: false, bot_score: 0, bot_signals: signals,
    lcp: null, inp: null, cls: null, fcp: null, ttfb: null, element: null,
    bot: { score: 0, verdict: 'human', signals, reasons: [] },
    issue_id: null, issue_title: null, issue_culprit: null, issue_type: null, issue_level: null,
    client_session: null, at: Date.parse(ts), ...over,
  };
};
