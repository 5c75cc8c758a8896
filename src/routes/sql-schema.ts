// The analyst schema as the SQL route's OpenAPI description shows it: the views of
// sql/migrations/0025_analyst_schema.sql, their columns and types. docs/sql-route.md says the same.

const views: [name: string, about: string, columns: string][] = [
  [
    'events',
    'every stored event (pageview, error, speed, engagement reports and custom names)',
    'id text, ts timestamptz, name text, visitor_id text, session_id text, path text, route text, title text, host text, referrer text, referrer_domain text, channel text, utm_source text, utm_medium text, utm_campaign text, utm_term text, utm_content text, country text, region text, city text, browser text, browser_version text, os text, os_version text, device text, screen text, viewport text, language text, connection text, props jsonb, groups jsonb, user_id text, release text, environment text, issue_id text, is_internal boolean, is_localhost boolean, bot_score smallint, is_human boolean, received_at timestamptz',
  ],
  [
    'sessions',
    'one row per session',
    'id text, visitor_id text, started_at timestamptz, last_activity timestamptz, duration_ms bigint, pageviews integer, events integer, entry_page text, exit_page text, referrer text, referrer_domain text, channel text, utm_source text, utm_medium text, utm_campaign text, country text, device text, browser text, os text, environment text, is_internal boolean, is_localhost boolean, bot_score smallint, is_human boolean',
  ],
  [
    'visitors',
    'one row per visitor',
    'id text, first_seen timestamptz, last_seen timestamptz, user_id text, traits jsonb, groups jsonb, experiments jsonb, country text, region text, city text, postal_code text, timezone text, latitude double precision, longitude double precision, browser text, browser_version text, os text, os_version text, device text, screen text, viewport text, language text, connection text, bot_score smallint, bot_signals jsonb, is_internal boolean',
  ],
  [
    'issues',
    'errors grouped into issues',
    'id text, title text, culprit text, type text, level text, status text, is_regression boolean, count integer, first_seen timestamptz, last_seen timestamptz, first_release text, last_release text, resolved_at timestamptz',
  ],
  [
    'speed_samples',
    'raw Web Vitals samples (kept 30 days)',
    'event_id text, ts timestamptz, visitor_id text, path text, route text, device text, country text, environment text, lcp double precision, inp double precision, cls double precision, fcp double precision, ttfb double precision, element text, bot_score smallint',
  ],
  [
    'annotations',
    'timeline markers',
    'id text, title text, date timestamptz, end_date timestamptz, kind text, note text, url text, created_at timestamptz, updated_at timestamptz',
  ],
];

export const ANALYST_SCHEMA_TEXT = [
  "The query sees only this project's rows, through these views (`is_human`: bot score under 50, not internal, not localhost, as the reads' default traffic=human):",
  '',
  ...views.map(([name, about, columns]) => `- \`${name}\` (${about}): ${columns}`),
  '',
  "Exactly one SELECT (WITH, UNION, subqueries and window functions included); functions from an allow list (aggregates, date/time, text, math, JSON, generate_series, unnest). Anything else is refused with 400 SQL_REFUSED naming it; PostgreSQL errors are 400 SQL_ERROR with their position; the statement timeout is 400 SQL_TIMEOUT; a plain answer over 10,000 rows or 16 MiB is 400 SQL_TOO_LARGE. Every run writes a `pipeline` line to the project's log stream. See docs/sql-route.md.",
].join('\n');
