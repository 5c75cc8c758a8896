-- Web Vitals older than the raw window (30 days), folded by the `speed` job (src/jobs/speed-fold.ts) into
-- per-day histograms: counts per log bucket of each metric, per (day, environment, bot, device, country,
-- route, path, element), so any percentile and share of any range and selection is still answered.
-- Buckets are log-spaced with relative width set by the job (docs/speed.md: value within 0.5%), and each
-- metric's web-vitals thresholds are bucket edges, so ratings and shares stay exact after folding.
create table speed_days (
  project_id  text not null references projects (id) on delete cascade,
  day         date not null,
  environment text not null,
  bot         boolean not null,
  device      text,
  country     text,
  route       text,
  path        text,
  element     text,
  metric      smallint not null, -- 0 lcp, 1 inp, 2 cls, 3 fcp, 4 ttfb
  bucket      integer not null,
  n           integer not null
);
create index speed_days_project_day on speed_days (project_id, day);

-- The bucket of a value v ≥ 0 on a metric whose good/poor thresholds are `good` < `poor`, for buckets at
-- most `gamma` wide (upper edge / lower edge): below good, edges good·gamma^k (k ≤ 0); between good and
-- poor, n equal log steps no wider than gamma (good and poor are edges); above poor, poor·gamma^k.
-- 0 (a CLS of no shift) has its own bucket, -1000000. A bucket is (lower, upper]: v = good is good.
create function loupe_speed_bucket(v float8, good float8, poor float8, gamma float8) returns integer
language sql immutable parallel safe as $$
  select case
    when v <= 0 then -1000000
    when v <= good then least(0, ceil(ln(v / good) / ln(gamma)))::int
    when v <= poor then greatest(1, least(ceil(ln(poor / good) / ln(gamma)),
      ceil(ln(v / good) * ceil(ln(poor / good) / ln(gamma)) / ln(poor / good))))::int
    else (ceil(ln(poor / good) / ln(gamma)) + greatest(1, ceil(ln(v / poor) / ln(gamma))))::int
  end
$$;

-- The value a bucket stands for: 2·lower·upper / (lower + upper), within (gamma − 1) / (gamma + 1) of
-- every value in the bucket (relative), and on the same side of both thresholds as they are.
create function loupe_speed_bucket_value(b integer, good float8, poor float8, gamma float8) returns float8
language sql immutable parallel safe as $$
  select case
    when b = -1000000 then 0
    when b <= 0 then 2 * good * power(gamma, b) / (1 + gamma)
    when b <= ceil(ln(poor / good) / ln(gamma)) then
      2 * good * power(poor / good, b / ceil(ln(poor / good) / ln(gamma)))
        / (1 + power(poor / good, 1 / ceil(ln(poor / good) / ln(gamma))))
    else 2 * poor * power(gamma, b - ceil(ln(poor / good) / ln(gamma))) / (1 + gamma)
  end
$$;
