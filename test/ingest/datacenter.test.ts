import t from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDatacenterIp, openDatacenter } from '../../src/ingest/datacenter.ts';

const datacenter = await openDatacenter();

t.test('cloud and hosting IPs are datacenter IPs, with their provider', async (t) => {
  const cases: Array<[string, string]> = [
    ['3.5.140.2', 'AWS'], // S3, ap-northeast-2
    ['52.95.110.1', 'AWS'],
    ['34.102.136.180', 'Google Cloud'],
    ['8.8.8.8', 'Google'],
    ['20.42.65.92', 'Microsoft Azure'],
    ['159.89.0.1', 'DigitalOcean'],
    ['5.9.0.1', 'Hetzner'],
    ['2a01:4f8::1', 'Hetzner'],
    ['2600:1f18::1', 'AWS'],
  ];
  for (const [ip, provider] of cases) {
    t.equal(datacenter.isDatacenterIp(ip), true, ip);
    t.equal(datacenter.provider(ip), provider, `${ip} provider`);
  }
});

t.test('residential and ISP IPs are not', async (t) => {
  // Comcast (US cable), BT (UK broadband), Andrews & Arnold (UK ISP), Deutsche Telekom
  for (const ip of ['73.0.0.1', '86.150.0.1', '81.2.69.142', '2003::1', '::ffff:73.0.0.1']) {
    t.equal(datacenter.isDatacenterIp(ip), false, ip);
    t.equal(datacenter.provider(ip), null, `${ip} provider`);
  }
});

t.test('private and invalid IPs are not evaluated', async (t) => {
  for (const ip of ['10.0.0.1', '192.168.1.1', '127.0.0.1', '::1', 'fd00::1', 'nope', '', null]) {
    t.equal(datacenter.isDatacenterIp(ip), null, String(ip));
  }
});

t.test('the synchronous convenience answers like the opened lookup', async (t) => {
  t.equal(isDatacenterIp('3.5.140.2'), true);
  t.equal(isDatacenterIp('73.0.0.1'), false);
  t.equal(isDatacenterIp('10.0.0.1'), null);
});

t.test('a custom database directory keeps only hosting ASNs', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'loupe-asn-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'asn-ipv4-num.csv'),
    [
      '16777216,16777471,13335,"Cloudflare, Inc."', // 1.0.0.0/24, not hosting
      '16777472,16777727,14061,"DigitalOcean, LLC"', // 1.0.1.0/24
      '',
    ].join('\n'),
  );
  await writeFile(join(dir, 'asn-ipv6-num.csv'), '1,10,16509,"Amazon.com, Inc."\n');
  const custom = await openDatacenter({ asnDbDir: dir });
  t.equal(custom.isDatacenterIp('1.0.0.9'), false);
  t.equal(custom.provider('1.0.1.9'), 'DigitalOcean');
  t.equal(custom.isDatacenterIp('1.0.2.0'), false);
  t.equal(custom.isDatacenterIp('2001:4860::1'), false);
});
