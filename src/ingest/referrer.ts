// Referrer enrichment: the referring URL without its query, its domain, and the acquisition channel
// (GA/Plausible-like). UTM tags win over the referrer; a self-referral is no referral (channel "Direct").
import type { Utm } from './page-url.ts';
import { createMemo } from '../memo.ts';

export const CHANNELS = [
  'Direct',
  'Organic Search',
  'Organic Social',
  'Paid Search',
  'Paid Social',
  'Paid Other',
  'Display',
  'Affiliates',
  'Email',
  'Referral',
] as const;
export type Channel = (typeof CHANNELS)[number];

export type ReferrerInfo = { referrer: string | null; referrerDomain: string | null; channel: Channel };

type SourceKind = 'search' | 'social' | 'email';

export function classifyReferrer(referrer: string | null, pageHost: string | null, utm: Utm | null): ReferrerInfo {
  const url = referrer === null ? null : memo(referrer, readReferrer);
  const domain = url?.domain ?? null;
  const self = domain !== null && pageHost !== null && domain === stripWww(pageHost.toLowerCase());
  return {
    referrer: url && !self ? url.cleaned : null,
    referrerDomain: self ? null : domain,
    channel: utmChannel(utm) ?? (self || !url ? 'Direct' : url.channel),
  };
}

/** The channel a campaign's utm_medium and utm_source name (null without either); memoised. */
function utmChannel(utm: Utm | null): Channel | null {
  const medium = utm?.medium ?? '';
  const source = utm?.source ?? '';
  if (!medium && !source) return null;
  return utmMemo(`${medium.length}:${medium}${source}`, () => channelFromUtm(utm));
}

const utmMemo = createMemo<Channel | null>(1_000);

/** The referrer's domain, its URL without query or hash, and its channel; memoised (the same referrers repeat). */
const memo = createMemo<{ domain: string; cleaned: string; channel: Channel } | null>(10_000);

function readReferrer(referrer: string): { domain: string; cleaned: string; channel: Channel } | null {
  const url = toUrl(referrer);
  if (!url) return null;
  const domain = stripWww(url.hostname);
  return { domain, cleaned: `${url.protocol}//${url.host}${url.pathname}`, channel: channelFromDomain(domain) };
}

function channelFromUtm(utm: Utm | null): Channel | null {
  const medium = utm?.medium?.toLowerCase() ?? '';
  const source = utm?.source?.toLowerCase() ?? '';
  if (!medium && !source) return null;
  const kind = sourceKind(source);
  if (/^(e[-_ ]?mail|newsletter)$/.test(medium) || kind === 'email') return 'Email';
  if (/^(cpc|ppc|cpv|cpa|paid|retargeting)$|^paid[-_ ]?|[-_ ]paid$/.test(medium)) {
    return kind === 'search' ? 'Paid Search' : kind === 'social' ? 'Paid Social' : 'Paid Other';
  }
  if (/^(display|banner|cpm|interstitial)$/.test(medium)) return 'Display';
  if (/^affiliates?$/.test(medium)) return 'Affiliates';
  if (/^(social|social[-_ ]?(network|media)|sm)$/.test(medium) || kind === 'social') return 'Organic Social';
  if (medium === 'organic' || kind === 'search') return 'Organic Search';
  return 'Referral';
}

function channelFromDomain(domain: string | null): Channel {
  if (!domain) return 'Direct';
  const kind = domainKind(domain);
  if (kind === 'email') return 'Email';
  if (kind === 'social') return 'Organic Social';
  if (kind === 'search') return 'Organic Search';
  return 'Referral';
}

/** Order matters: mail.google.com is email before google.* is search. */
function domainKind(domain: string): SourceKind | null {
  if (matches(domain, EMAIL_DOMAINS)) return 'email';
  if (matches(domain, SOCIAL_DOMAINS) || /(^|\.)mastodon\.|^(mstdn|toot)\./.test(domain)) return 'social';
  if (matches(domain, SEARCH_DOMAINS) || /^google\.(com?\.)?[a-z]{2,3}$/.test(domain)) return 'search';
  if (/^yandex\.[a-z]{2,3}$|(^|\.)search\.yahoo\.com$/.test(domain)) return 'search';
  return null;
}

/** utm_source is free text ("google", "fb", "newsletter-may", "linkedin.com"): classify it word by word. */
function sourceKind(source: string): SourceKind | null {
  if (!source) return null;
  if (source.includes('.') && !source.includes(' ')) return domainKind(stripWww(source));
  const words = source.split(/[^a-z0-9]+/);
  if (words.some((word) => EMAIL_WORDS.has(word))) return 'email';
  if (words.some((word) => SOCIAL_WORDS.has(word))) return 'social';
  if (words.some((word) => SEARCH_WORDS.has(word))) return 'search';
  return null;
}

function matches(domain: string, list: readonly string[]): boolean {
  return list.some((entry) => domain === entry || domain.endsWith(`.${entry}`));
}

function stripWww(hostname: string): string {
  return hostname.replace(/\.$/, '').replace(/^www\d*\./, '');
}

function toUrl(value: string | null): URL | null {
  if (!value?.trim()) return null;
  try {
    const url = new URL(value.trim());
    // android-app://com.google.android.gm/ is how Android apps refer; its host is the app id.
    return ['http:', 'https:', 'android-app:'].includes(url.protocol) && url.hostname ? url : null;
  } catch {
    return null;
  }
}

const EMAIL_DOMAINS = [
  'mail.google.com',
  'com.google.android.gm',
  'outlook.live.com',
  'outlook.office.com',
  'outlook.office365.com',
  'mail.yahoo.com',
  'mail.proton.me',
  'mail.aol.com',
  'mail.yandex.ru',
  'app.fastmail.com',
  'mail.zoho.com',
];
const SOCIAL_DOMAINS = [
  'facebook.com',
  'fb.com',
  'fb.me',
  't.co',
  'twitter.com',
  'x.com',
  'linkedin.com',
  'lnkd.in',
  'reddit.com',
  'instagram.com',
  'youtube.com',
  'youtu.be',
  'tiktok.com',
  'pinterest.com',
  'news.ycombinator.com',
  'mastodon.social',
  'fosstodon.org',
  'hachyderm.io',
  'infosec.exchange',
  'threads.net',
  'bsky.app',
  'tumblr.com',
  'quora.com',
  'vk.com',
  'weibo.com',
  'discord.com',
  't.me',
  'whatsapp.com',
  'snapchat.com',
  'com.facebook.katana',
  'com.twitter.android',
  'com.linkedin.android',
  'com.reddit.frontpage',
];
const SEARCH_DOMAINS = [
  'bing.com',
  'duckduckgo.com',
  'yahoo.com',
  'ya.ru',
  'baidu.com',
  'ecosia.org',
  'search.brave.com',
  'startpage.com',
  'qwant.com',
  'naver.com',
  'seznam.cz',
  'sogou.com',
  'so.com',
  'kagi.com',
  'yandex.com',
  'com.google.android.googlequicksearchbox',
];
const EMAIL_WORDS = new Set(['email', 'mail', 'newsletter', 'gmail', 'outlook', 'mailchimp', 'substack']);
const SOCIAL_WORDS = new Set([
  'facebook',
  'fb',
  'instagram',
  'ig',
  'twitter',
  'x',
  'linkedin',
  'reddit',
  'youtube',
  'tiktok',
  'pinterest',
  'hackernews',
  'hn',
  'mastodon',
  'threads',
  'bluesky',
  'snapchat',
  'whatsapp',
  'telegram',
  'discord',
  'meta',
]);
const SEARCH_WORDS = new Set([
  'google',
  'bing',
  'duckduckgo',
  'ddg',
  'yahoo',
  'yandex',
  'baidu',
  'ecosia',
  'brave',
  'startpage',
  'qwant',
  'naver',
  'kagi',
  'adwords',
  'gads',
]);
