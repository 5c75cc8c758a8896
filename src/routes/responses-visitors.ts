// The success bodies of the visitor and session reads (visitors list, profile, sessions, a session's
// events) and of marking a visitor internal; see responses.ts for how these schemas are used.
import * as v from 'valibot';
import { at, data, device, echo, int, maybe, text } from './response-parts.ts';

const shortDevice = v.object({ type: maybe(text), browser: maybe(text), os: maybe(text) });
export const visitorsResponse = v.object({
  data: v.array(
    v.object({
      id: text,
      lastEventInRange: at,
      pageviews: int,
      sessions: int,
      events: int,
      firstSeen: at,
      lastSeen: at,
      userId: maybe(text),
      country: maybe(text),
      device: shortDevice,
      isInternal: v.boolean(),
      botScore: int,
    }),
  ),
  nextCursor: maybe(text),
  ...echo,
});
export const sessionsResponse = v.object({
  data: v.array(
    v.object({
      id: text,
      visitor: text,
      startedAt: at,
      durationMs: int,
      pageviews: int,
      events: int,
      entryPage: maybe(text),
      exitPage: maybe(text),
      referrerDomain: maybe(text),
      channel: maybe(text),
      country: maybe(text),
      device: shortDevice,
      isInternal: v.boolean(),
      bot: v.object({ score: int }),
    }),
  ),
  nextCursor: maybe(text),
  ...echo,
});

const signals = v.object({
  headless: maybe(v.boolean()),
  webdriver: maybe(v.boolean()),
  datacenterAsn: maybe(v.boolean()),
  pointerEvents: maybe(v.boolean()),
  uaMismatch: maybe(v.boolean()),
  uniformDwell: maybe(v.boolean()),
});
export const visitorResponse = data(
  v.object({
    id: text,
    firstSeen: at,
    lastSeen: at,
    sessions: int,
    pageviews: int,
    events: int,
    visitCount: int,
    daysActive: int,
    medianDaysBetweenVisits: v.number(),
    returnedWithin: v.object({ day: v.boolean(), week: v.boolean(), month: v.boolean() }),
    isInternal: v.boolean(),
    identity: v.object({ userId: maybe(text), traits: v.record(v.string(), v.unknown()) }),
    experiments: v.record(v.string(), v.string()),
    geo: v.object({
      country: maybe(text),
      region: maybe(text),
      city: maybe(text),
      postalCode: maybe(text),
      timezone: maybe(text),
      latitude: maybe(v.number()),
      longitude: maybe(v.number()),
    }),
    device,
    topPages: v.array(v.object({ value: maybe(text), pageviews: int })),
    recentSessions: v.array(
      v.object({
        id: text,
        startedAt: at,
        durationMs: int,
        pageviews: int,
        entryPage: maybe(text),
        exitPage: maybe(text),
        referrer: maybe(text),
      }),
    ),
    bot: v.object({ score: int, verdict: text, signals }),
  }),
);
export const visitorPatchResponse = data(
  v.object({ id: text, isInternal: v.boolean(), eventsUpdated: int, sessionsUpdated: int }),
);
export const sessionEventsResponse = v.object({
  session: v.object({
    id: text,
    visitor: text,
    startedAt: at,
    durationMs: int,
    bot: v.object({ score: int, reasons: v.array(text) }),
  }),
  data: v.array(
    v.object({
      id: text,
      name: text,
      ts: at,
      page: v.object({ path: maybe(text), route: maybe(text), title: maybe(text), referrer: maybe(text) }),
      props: v.record(v.string(), v.unknown()),
    }),
  ),
  nextCursor: maybe(text),
});
