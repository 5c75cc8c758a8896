// The overview: a project's at-a-glance numbers, cached ten seconds per project. Live members
// (online, views per minute) come from the actor; the rest is one statement in sql/queries/overview.sql.
import { query } from '../db/queries.ts';
import { readSpeed } from '../query/speed/read.ts';
import { route } from './route.ts';
import { overviewResponse } from './responses.ts';

type OverviewRow = {
  today: { visitors: number; pageviews: number; bounceRate: number; avgSessionSeconds: number };
  ingest: { accepted: number; duplicates: number; rejected: number; rateLimited: number };
  bot_share: { share: number };
  bot_signals: { headless: number; webdriver: number; datacenterAsn: number };
  errors: { last30m: number; openIssues: number };
  top_pages: { path: string; views: number }[];
  referrers: { name: string; share: number }[];
  countries: { code: string; share: number }[];
  release: { current: string; deployedAt: string; newIssuesSince: number } | null;
};

/** How long an overview is answered from services.overviews, each app's own: two apps in one process
 *  (tests, a second server) never share one. */
export const OVERVIEW_CACHE_MS = 10_000;

/** The overview's speed: p75 of the last seven days, human production samples of every device. */
const WEEK = 7 * 86_400_000;
const OVERVIEW_SPEED = { environment: 'production', bots: 'human', device: 'all', filters: [] } as const;

export const overviewRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/overview',
    response: overviewResponse,
    access: 'project',
    tag: 'Overview',
    summary:
      'Online now, views per minute (last 10), today, ingest in the last 24 h, bots, speed p75 (7 days), errors, top pages, referrers, countries, release. Cached 10 s.',
    async handler({ project, services }) {
      const hit = services.overviews.get(project.id);
      if (hit) return hit;
      const now = new Date();
      const [[row], speed, live] = await Promise.all([
        query<OverviewRow>(services.sql, 'overview', [project.id]),
        readSpeed(
          services.sql,
          { ...OVERVIEW_SPEED, projectIds: [project.id], range: { from: new Date(now.getTime() - WEEK), to: now } },
          75,
        ),
        // The live members come from the project's actor; if its process cannot be reached, they read as
        // nothing live rather than failing the whole overview (and that answer is not cached).
        services.cluster
          .project(project.id)
          .then((p) => p.realtime(0))
          .catch((err: unknown) => {
            services.log.warn("the overview's live members could not be read", { err, projectId: project.id });
            return null;
          }),
      ]);
      const r = row!;
      const value = {
        data: {
          online: live?.snapshot.visitors ?? 0,
          viewsPerMinute: live?.viewsPerMinute ?? new Array<number>(10).fill(0),
          today: { ...r.today, avgSessionSeconds: Math.round(r.today.avgSessionSeconds) },
          ingest: { last24h: r.ingest },
          bots: { share: r.bot_share.share, ...r.bot_signals },
          speed: {
            lcp: speed.metrics.lcp.value,
            inp: speed.metrics.inp.value,
            cls: speed.metrics.cls.value,
            ttfb: speed.metrics.ttfb.value,
          },
          errors: r.errors,
          topPages: r.top_pages,
          referrers: r.referrers,
          countries: r.countries,
          release: r.release
            ? { ...r.release, deployedAt: new Date(r.release.deployedAt).toISOString() }
            : { current: null, deployedAt: null, newIssuesSince: 0 },
        },
      };
      if (live) services.overviews.set(project.id, value);
      return value;
    },
  }),
];
