// The reads `bench:query` times: what the dashboard sends for a project (the list), each a path
// built when it is sent. "Today" is the dashboard's: the whole UTC day, from midnight to the next
// (src/dashboard/app/query-state.ts), with one read that ends at the moment of the request beside it (an
// API client's "up to now"). Retention is the retention view's default range, through the end of today.
// A `comparison` is not a dashboard read: the raw path beside the rolled one it replaced, timed in every
// condition, and left out of one of the ingest runs so that ingest beside the dashboard's reads alone is seen.
export type Read = { name: string; path: (project: string) => string; across?: boolean; comparison?: boolean };

const DAY = 86_400_000;

export function dashboardReads(): Read[] {
  const p = (project: string) => `/v2/projects/${project}`;
  const days30 = (shortMs: number) => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    return `from=${iso(today - 30 * DAY + shortMs)}&to=${iso(today)}`;
  };
  const midnight = () => Math.floor(Date.now() / DAY) * DAY;
  const today = () => `from=${iso(midnight())}&to=${iso(midnight() + DAY)}`;
  const upToNow = () => `from=${iso(midnight())}&to=${iso(Date.now())}`;
  return [
    { name: 'stats 30d', path: (x) => `${p(x)}/stats?period=30d` },
    { name: 'timeseries 30d by day', path: (x) => `${p(x)}/timeseries?period=30d&metric=visitors&interval=day` },
    { name: 'stats 90d', path: (x) => `${p(x)}/stats?period=90d` },
    { name: 'breakdown page', path: (x) => `${p(x)}/breakdown/page?period=30d` },
    { name: 'breakdown referrer_domain', path: (x) => `${p(x)}/breakdown/referrer_domain?period=30d` },
    { name: 'breakdown utm_source', path: (x) => `${p(x)}/breakdown/utm_source?period=30d` },
    { name: 'breakdown channel', path: (x) => `${p(x)}/breakdown/channel?period=30d` },
    { name: 'breakdown entry_page', path: (x) => `${p(x)}/breakdown/entry_page?period=30d` },
    { name: 'breakdown exit_page', path: (x) => `${p(x)}/breakdown/exit_page?period=30d` },
    // The same 30 days less a millisecond: not whole days, so always the raw path (the before of the two above).
    {
      name: 'breakdown entry_page (raw path)',
      path: (x) => `${p(x)}/breakdown/entry_page?${days30(1)}`,
      comparison: true,
    },
    {
      name: 'breakdown country, device=mobile',
      path: (x) => `${p(x)}/breakdown/country?period=30d&filter[device]=mobile`,
    },
    {
      name: 'breakdown browser, country=US & channel=Organic Search',
      path: (x) => `${p(x)}/breakdown/browser?period=30d&filter[country]=US&filter[channel]=Organic%20Search`,
    },
    {
      name: 'breakdown referrer_domain, device=mobile',
      path: (x) => `${p(x)}/breakdown/referrer_domain?period=30d&filter[device]=mobile`,
    },
    {
      name: 'breakdown referrer_domain, device=mobile (raw path)',
      path: (x) => `${p(x)}/breakdown/referrer_domain?${days30(1)}&filter[device]=mobile`,
      comparison: true,
    },
    // An API client's breakdown by a visitor-level or acquisition value with session metrics.
    {
      name: 'breakdown country (visitors, bounce rate, session duration)',
      path: (x) => `${p(x)}/breakdown/country?period=30d&metrics=visitors,bounce_rate,session_duration`,
    },
    {
      name: 'breakdown channel (visitors, bounce rate), device=mobile',
      path: (x) => `${p(x)}/breakdown/channel?period=30d&metrics=visitors,bounce_rate&filter[device]=mobile`,
    },
    {
      name: 'breakdown prop:plan, event=signup',
      path: (x) => `${p(x)}/breakdown/prop:plan?period=30d&filter[event]=signup`,
    },
    // The retention view's default: weeks over the last 90 days through the end of today.
    {
      name: 'retention 90 days by week',
      path: (x) =>
        `${p(x)}/retention?interval=week&from=${iso(midnight() + DAY - 90 * DAY)}&to=${iso(midnight() + DAY)}`,
    },
    { name: 'stats today', path: (x) => `${p(x)}/stats?${today()}` },
    { name: 'stats today, up to now', path: (x) => `${p(x)}/stats?${upToNow()}` },
    { name: 'timeseries today by hour', path: (x) => `${p(x)}/timeseries?${today()}&metric=visitors&interval=hour` },
    // The pages panel asks for its two columns and eight rows (src/dashboard/app/views/overview/rows.tsx);
    // an API client's default metrics (bounce rate, time on page) group today's sessions and pageviews too.
    {
      name: 'breakdown page today',
      path: (x) => `${p(x)}/breakdown/page?${today()}&metrics=visitors,pageviews&limit=8`,
    },
    { name: 'breakdown page today (default metrics)', path: (x) => `${p(x)}/breakdown/page?${today()}` },
    { name: '/v2/breakdown/project (all projects)', path: () => `/v2/breakdown/project?period=30d`, across: true },
    // What the overview sends once a row of the device panel is clicked: the same reads under a filter.
    // The chart's visitors come from the dimension rollups, stats and the chart's session metrics from the
    // session facts per set of values, the page, entry page and event panels' from the per-set rows.
    { name: 'stats 30d, device=mobile', path: (x) => `${p(x)}/stats?period=30d&filter[device]=mobile` },
    {
      name: 'stats 30d, country=US & channel=Organic Search',
      path: (x) => `${p(x)}/stats?period=30d&filter[country]=US&filter[channel]=Organic%20Search`,
    },
    {
      name: 'timeseries 30d by day, device=mobile',
      path: (x) => `${p(x)}/timeseries?period=30d&metric=visitors&interval=day&filter[device]=mobile`,
    },
    {
      name: 'timeseries bounce rate 30d, device=mobile',
      path: (x) => `${p(x)}/timeseries?period=30d&metric=bounce_rate&interval=day&filter[device]=mobile`,
    },
    {
      name: 'breakdown page (visitors, pageviews), device=mobile',
      path: (x) => `${p(x)}/breakdown/page?period=30d&metrics=visitors,pageviews&filter[device]=mobile`,
    },
    // An API client's page breakdown under the filter: its default metrics (bounce rate, time on page) from
    // the page facts per set (0092).
    {
      name: 'breakdown page (default metrics), device=mobile',
      path: (x) => `${p(x)}/breakdown/page?period=30d&filter[device]=mobile`,
    },
    {
      name: 'breakdown event (visitors, events), device=mobile',
      path: (x) => `${p(x)}/breakdown/event?period=30d&metrics=visitors,events&filter[device]=mobile`,
    },
    {
      name: 'breakdown entry_page (visitors), device=mobile',
      path: (x) => `${p(x)}/breakdown/entry_page?period=30d&metrics=visitors&filter[device]=mobile`,
    },
    // A second filter from the other family (a country, then a channel): the pages, events and entry pages
    // panels from the rows per pair of sets (0094).
    {
      name: 'breakdown page (visitors, pageviews), country=US & channel=Organic Search',
      path: (x) =>
        `${p(x)}/breakdown/page?period=30d&metrics=visitors,pageviews&filter[country]=US&filter[channel]=Organic%20Search`,
    },
    {
      name: 'breakdown event (visitors, events), country=US & channel=Organic Search',
      path: (x) =>
        `${p(x)}/breakdown/event?period=30d&metrics=visitors,events&filter[country]=US&filter[channel]=Organic%20Search`,
    },
    {
      name: 'breakdown entry_page (visitors), country=US & channel=Organic Search',
      path: (x) =>
        `${p(x)}/breakdown/entry_page?period=30d&metrics=visitors&filter[country]=US&filter[channel]=Organic%20Search`,
    },
    // An API client's page breakdown under both: its default metrics from the page facts per pair (0099).
    {
      name: 'breakdown page (default metrics), country=US & channel=Organic Search',
      path: (x) => `${p(x)}/breakdown/page?period=30d&filter[country]=US&filter[channel]=Organic%20Search`,
    },
    // A row of the page or events panel clicked: stats from the session facts per path or name, breakdowns
    // from the page or name rows per set.
    { name: 'stats 30d, page=/pricing', path: (x) => `${p(x)}/stats?period=30d&filter[page]=/pricing` },
    {
      name: 'breakdown country, page=/pricing',
      path: (x) => `${p(x)}/breakdown/country?period=30d&filter[page]=/pricing`,
    },
    // Then a row of the devices panel: stats from the path's session facts per set (0097).
    {
      name: 'stats 30d, page=/pricing & device=mobile',
      path: (x) => `${p(x)}/stats?period=30d&filter[page]=/pricing&filter[device]=mobile`,
    },
    // And a source too: the path's session facts per pair of sets (0099).
    {
      name: 'stats 30d, page=/pricing & device=mobile & channel=Direct',
      path: (x) => `${p(x)}/stats?period=30d&filter[page]=/pricing&filter[device]=mobile&filter[channel]=Direct`,
    },
    // A row of the events panel clicked: stats from the name's session facts (0090), the page panel from the
    // path rows per name (0100).
    { name: 'stats 30d, event=signup', path: (x) => `${p(x)}/stats?period=30d&filter[event]=signup` },
    {
      name: 'breakdown page (visitors, pageviews), event=signup',
      path: (x) => `${p(x)}/breakdown/page?period=30d&metrics=visitors,pageviews&filter[event]=signup`,
    },
    // A row of the prop panel clicked (the seed's signups carry a plan): no rollup holds a site's own props,
    // so these read the matching events, found through the GIN index on props (0095).
    { name: 'stats 30d, prop:plan=pro', path: (x) => `${p(x)}/stats?period=30d&filter[prop:plan]=pro` },
    {
      name: 'breakdown page (visitors, pageviews), prop:plan=pro',
      path: (x) => `${p(x)}/breakdown/page?period=30d&metrics=visitors,pageviews&filter[prop:plan]=pro`,
    },
    // A trait (the seed's identified visitors carry a plan): the visitors with it through their traits' index,
    // then their sessions' events (0096, scope.ts).
    { name: 'stats 30d, trait:plan=pro', path: (x) => `${p(x)}/stats?period=30d&filter[trait:plan]=pro` },
    {
      name: 'breakdown page, trait:plan=pro',
      path: (x) => `${p(x)}/breakdown/page?period=30d&filter[trait:plan]=pro`,
    },
  ];
}

const iso = (ms: number) => new Date(ms).toISOString();
