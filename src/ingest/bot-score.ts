// Bot score: 0–100 from independent signals, added and capped at 100. Weights: known crawler UA 90,
// webdriver 70, headless 60, UA/client-hints mismatch 30, uniform dwell times 30, datacenter ASN 30, no
// pointer events 10. Verdicts: human < 25 ≤ suspect < 50 ≤ bot. Signals are null when not evaluated.
import type { UserAgentInfo } from './user-agent.ts';

export type BotSignals = {
  headless: boolean | null;
  webdriver: boolean | null;
  datacenterAsn: boolean | null;
  /** As the SDK reported it: true = the visitor produced pointer events. Only `false` adds to the score. */
  pointerEvents: boolean | null;
  uaMismatch: boolean | null;
  uniformDwell: boolean | null;
};

export type BotVerdict = 'human' | 'suspect' | 'bot';
export type BotReason = keyof typeof BOT_WEIGHTS;
/** `reasons`: the signals that fired, in the order of BOT_WEIGHTS. */
export type BotScore = { score: number; verdict: BotVerdict; signals: BotSignals; reasons: readonly BotReason[] };

export type BotScoreInput = {
  ua: UserAgentInfo;
  signals?: { webdriver?: boolean | null; headless?: boolean | null; pointerEvents?: boolean | null } | null;
  datacenter: boolean | null;
  /** The raw `Sec-CH-UA` request header. */
  clientHintsBrand?: string | null;
  dwellTimesMs?: number[] | null;
};

export const BOT_WEIGHTS = {
  crawler: 90,
  webdriver: 70,
  headless: 60,
  uaMismatch: 30,
  uniformDwell: 30,
  datacenterAsn: 30,
  noPointerEvents: 10,
} as const;
export const SUSPECT_AT = 25;
export const BOT_AT = 50;

const MIN_DWELL_SAMPLES = 3;
const UNIFORM_CV = 0.05;

export function scoreBot(input: BotScoreInput): BotScore {
  const sdk = input.signals ?? {};
  const signals: BotSignals = {
    headless: input.ua.headless || sdk.headless === true,
    webdriver: sdk.webdriver ?? null,
    datacenterAsn: input.datacenter,
    pointerEvents: sdk.pointerEvents ?? null,
    uaMismatch: uaMismatch(input.ua, input.clientHintsBrand),
    uniformDwell: uniformDwell(input.dwellTimesMs),
  };
  // Every event is scored and nearly every one is human: no array is made unless a signal fired.
  let fired: BotReason[] | null = null;
  if (input.ua.isBot) fired = withReason(fired, 'crawler');
  if (signals.webdriver === true) fired = withReason(fired, 'webdriver');
  if (signals.headless === true) fired = withReason(fired, 'headless');
  if (signals.uaMismatch === true) fired = withReason(fired, 'uaMismatch');
  if (signals.uniformDwell === true) fired = withReason(fired, 'uniformDwell');
  if (signals.datacenterAsn === true) fired = withReason(fired, 'datacenterAsn');
  if (signals.pointerEvents === false) fired = withReason(fired, 'noPointerEvents');
  const reasons: readonly BotReason[] = fired ?? NO_REASONS;
  const score = scoreOf(reasons);
  return { score, verdict: verdictOf(score), signals, reasons };
}

/** The reasons' weights summed, at most 100. */
function scoreOf(reasons: readonly BotReason[]): number {
  let sum = 0;
  for (const reason of reasons) sum += BOT_WEIGHTS[reason];
  return Math.min(100, sum);
}

const NO_REASONS: readonly BotReason[] = Object.freeze([]);
const REASON_ORDER = Object.keys(BOT_WEIGHTS) as BotReason[];

/** Completes an event's score with the uniform-dwell signal its session tells (enrichment sees one event;
 *  the project actor sees the session's pageviews), by scoreBot's rules. Changes `bot` in place: it must
 *  be the event's own (scoreBot makes one an event), so most events, whose signal is false, cost no copy. */
export function applyDwell(bot: BotScore, uniform: boolean | null): void {
  if (uniform === null) return; // the session cannot tell yet: what enrichment said stands
  const fired = bot.signals.uniformDwell === true;
  bot.signals.uniformDwell = uniform;
  if (fired === (uniform === true)) return; // null → false and the like: the score stays
  const others = bot.reasons.filter((r) => r !== 'uniformDwell');
  const reasons = uniform ? REASON_ORDER.filter((r) => r === 'uniformDwell' || others.includes(r)) : others;
  bot.reasons = reasons.length > 0 ? reasons : NO_REASONS;
  bot.score = scoreOf(reasons);
  bot.verdict = verdictOf(bot.score);
}

function withReason(fired: BotReason[] | null, reason: BotReason): BotReason[] {
  (fired ??= []).push(reason);
  return fired;
}

export function verdictOf(score: number): BotVerdict {
  return score >= BOT_AT ? 'bot' : score >= SUSPECT_AT ? 'suspect' : 'human';
}

const CHROMIUM_BROWSERS = new Set(['Chrome', 'Edge', 'Opera', 'Samsung Internet', 'Brave', 'Vivaldi', 'Yandex']);
const NON_CHROMIUM_BROWSERS = new Set(['Firefox', 'Safari']);

/**
 * Chromium browsers send `Sec-CH-UA` (on secure origins) with a "Chromium" brand; Firefox and Safari send
 * none. Without the header, or for other browsers, there is nothing to compare: null.
 */
function uaMismatch(ua: UserAgentInfo, header: string | null | undefined): boolean | null {
  if (!header || !ua.browser) return null; // most events: no hints, nothing parsed
  const brands = parseBrands(header);
  if (brands.size === 0) return null;
  if (NON_CHROMIUM_BROWSERS.has(ua.browser)) return true;
  if (!CHROMIUM_BROWSERS.has(ua.browser)) return null;
  const chromium = brands.get('chromium');
  if (chromium === undefined) return true;
  // A UA saying Chrome 131 with hints saying Chromium 120 was edited by hand (or by a bot framework).
  const major = ua.browserVersion?.split('.')[0];
  return ua.browser === 'Chrome' && major !== undefined && chromium !== '' && chromium !== major;
}

/** `"Chromium";v="131", "Google Chrome";v="131", "Not_A Brand";v="24"` → brand (lowercased) → major. */
function parseBrands(header: string): Map<string, string> {
  const brands = new Map<string, string>();
  for (const match of header.matchAll(/"([^"]*)"\s*(?:;\s*v\s*=\s*"([^"]*)")?/g)) {
    brands.set(match[1].trim().toLowerCase(), (match[2] ?? '').split('.')[0]);
  }
  return brands;
}

/** Humans read pages for very different times; a script waits the same. Coefficient of variation < 5%;
 *  null with fewer than three times. */
export function uniformDwell(dwellTimesMs: readonly number[] | null | undefined): boolean | null {
  // Indexed loops, not filter and reduce (arrays and closures) nor for…of (an iterator's result a step until
  // optimized): the sessionizer asks at every pageview.
  if (!dwellTimesMs || dwellTimesMs.length < MIN_DWELL_SAMPLES) return null;
  let n = 0;
  let sum = 0;
  for (let i = 0; i < dwellTimesMs.length; i++) {
    const time = dwellTimesMs[i]!;
    if (!isDwell(time)) continue;
    n++;
    sum += time;
  }
  if (n < MIN_DWELL_SAMPLES) return null;
  const mean = sum / n;
  if (mean === 0) return true;
  let squares = 0;
  for (let i = 0; i < dwellTimesMs.length; i++) {
    const time = dwellTimesMs[i]!;
    if (isDwell(time)) squares += (time - mean) ** 2;
  }
  return Math.sqrt(squares / n) / mean < UNIFORM_CV;
}

const isDwell = (time: number) => Number.isFinite(time) && time >= 0;
