import t from 'tap';
import { classifyReferrer } from '../../src/ingest/referrer.ts';
import { emptyUtm, type Utm } from '../../src/ingest/page-url.ts';

const utm = (fields: Partial<Utm>): Utm => ({ ...emptyUtm(), ...fields });

t.test('channels from the referrer alone', async (t) => {
  const cases: Array<[string | null, string]> = [
    [null, 'Direct'],
    ['', 'Direct'],
    ['not a url', 'Direct'],
    ['https://www.google.com/', 'Organic Search'],
    ['https://www.google.co.uk/search?q=loupe', 'Organic Search'],
    ['https://google.de/', 'Organic Search'],
    ['https://www.bing.com/search?q=x', 'Organic Search'],
    ['https://duckduckgo.com/', 'Organic Search'],
    ['https://search.yahoo.com/search?p=x', 'Organic Search'],
    ['https://yandex.ru/search/?text=x', 'Organic Search'],
    ['https://www.baidu.com/link?url=x', 'Organic Search'],
    ['https://www.ecosia.org/search?q=x', 'Organic Search'],
    ['https://search.brave.com/search?q=x', 'Organic Search'],
    ['https://www.startpage.com/', 'Organic Search'],
    ['android-app://com.google.android.googlequicksearchbox/', 'Organic Search'],
    ['https://l.facebook.com/l.php?u=x', 'Organic Social'],
    ['https://m.facebook.com/', 'Organic Social'],
    ['https://t.co/abc123', 'Organic Social'],
    ['https://x.com/someone/status/1', 'Organic Social'],
    ['https://twitter.com/', 'Organic Social'],
    ['https://www.linkedin.com/feed/', 'Organic Social'],
    ['https://old.reddit.com/r/webdev/', 'Organic Social'],
    ['https://www.instagram.com/', 'Organic Social'],
    ['https://www.youtube.com/watch?v=x', 'Organic Social'],
    ['https://www.tiktok.com/', 'Organic Social'],
    ['https://www.pinterest.com/pin/1', 'Organic Social'],
    ['https://news.ycombinator.com/item?id=1', 'Organic Social'],
    ['https://mastodon.social/@someone', 'Organic Social'],
    ['https://mastodon.example.org/@someone', 'Organic Social'],
    ['https://mail.google.com/mail/u/0/', 'Email'],
    ['https://outlook.live.com/mail/', 'Email'],
    ['android-app://com.google.android.gm/', 'Email'],
    ['https://github.com/some/repo', 'Referral'],
    ['https://news.google.com/articles/x', 'Referral'],
    ['https://blog.example.org/post', 'Referral'],
  ];
  for (const [referrer, channel] of cases) {
    t.equal(classifyReferrer(referrer, 'loupe.dev', null).channel, channel, String(referrer));
  }
});

t.test('UTM tags win over the referrer', async (t) => {
  const cases: Array<[Partial<Utm>, string | null, string]> = [
    [{ source: 'google', medium: 'cpc' }, 'https://www.google.com/', 'Paid Search'],
    [{ source: 'bing', medium: 'ppc' }, null, 'Paid Search'],
    [{ source: 'facebook', medium: 'paid' }, 'https://l.facebook.com/', 'Paid Social'],
    [{ source: 'linkedin', medium: 'paid_social' }, null, 'Paid Social'],
    [{ source: 'ig', medium: 'cpc' }, null, 'Paid Social'],
    [{ source: 'partner-site', medium: 'cpc' }, null, 'Paid Other'],
    [{ source: 'newsletter', medium: 'email' }, 'https://github.com/', 'Email'],
    [{ source: 'buttondown', medium: 'e-mail' }, null, 'Email'],
    [{ source: 'newsletter-may' }, null, 'Email'],
    [{ source: 'twitter' }, 'https://www.google.com/', 'Organic Social'],
    [{ medium: 'social' }, null, 'Organic Social'],
    [{ source: 'google', medium: 'organic' }, null, 'Organic Search'],
    [{ source: 'duckduckgo.com' }, null, 'Organic Search'],
    [{ source: 'reddit.com' }, null, 'Organic Social'],
    [{ source: 'adnetwork', medium: 'display' }, null, 'Display'],
    [{ source: 'partner', medium: 'affiliate' }, null, 'Affiliates'],
    [{ source: 'producthunt' }, null, 'Referral'],
    [{ campaign: 'launch' }, 'https://www.google.com/', 'Organic Search'], // campaign alone says nothing
  ];
  for (const [fields, referrer, channel] of cases) {
    t.equal(classifyReferrer(referrer, 'loupe.dev', utm(fields)).channel, channel, JSON.stringify(fields));
  }
});

t.test('referrer URL loses its query and fragment; domain loses www', async (t) => {
  t.same(classifyReferrer('https://www.google.com/search?q=secret#x', 'loupe.dev', null), {
    referrer: 'https://www.google.com/search',
    referrerDomain: 'google.com',
    channel: 'Organic Search',
  });
  t.same(classifyReferrer('https://blog.example.org:8080/post/?ref=1', 'loupe.dev', null), {
    referrer: 'https://blog.example.org:8080/post/',
    referrerDomain: 'blog.example.org',
    channel: 'Referral',
  });
  t.same(classifyReferrer('ftp://files.example.org/x', 'loupe.dev', null), {
    referrer: null,
    referrerDomain: null,
    channel: 'Direct',
  });
});

t.test('a self-referral is no referral', async (t) => {
  t.same(classifyReferrer('https://loupe.dev/pricing?x=1', 'loupe.dev', null), {
    referrer: null,
    referrerDomain: null,
    channel: 'Direct',
  });
  t.same(classifyReferrer('https://www.loupe.dev/', 'loupe.dev', null).channel, 'Direct');
  t.same(classifyReferrer('https://loupe.dev/', 'WWW.Loupe.dev', null).referrerDomain, null);
  t.same(classifyReferrer('https://loupe.dev/', 'loupe.dev', utm({ source: 'google', medium: 'cpc' })), {
    referrer: null,
    referrerDomain: null,
    channel: 'Paid Search',
  });
  t.same(
    classifyReferrer('https://docs.loupe.dev/', 'loupe.dev', null),
    {
      referrer: 'https://docs.loupe.dev/',
      referrerDomain: 'docs.loupe.dev',
      channel: 'Referral',
    },
    'another subdomain is a referral',
  );
});
