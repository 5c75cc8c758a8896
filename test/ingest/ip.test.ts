import t from 'tap';
import { isLocalhost, isPrivateIp, parseIp } from '../../src/ingest/ip.ts';

t.test('parseIp', async (t) => {
  t.same(parseIp('1.2.3.4'), { version: 4, value: 0x01020304 });
  t.same(parseIp('255.255.255.255'), { version: 4, value: 0xffffffff });
  t.same(parseIp('::ffff:1.2.3.4'), { version: 4, value: 0x01020304 });
  t.same(parseIp('::1'), { version: 6, value: 1n });
  t.same(parseIp('[2001:db8::8]'), { version: 6, value: (0x20010db8n << 96n) | 8n });
  t.same(parseIp('fe80::1%eth0'), { version: 6, value: (0xfe80n << 112n) | 1n });
  for (const bad of [null, '', 'x', '1.2.3', '1.2.3.256', ':::', '1:2:3:4:5:6:7:8:9'])
    t.equal(parseIp(bad), null, String(bad));
});

t.test('isPrivateIp', async (t) => {
  for (const ip of [
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '169.254.0.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fc00::1',
    'fd12::1',
    'fe80::1',
    '::ffff:10.0.0.1',
  ]) {
    t.equal(isPrivateIp(ip), true, ip);
  }
  for (const ip of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '1.1.1.1', '2001:4860:4860::8888', 'junk']) {
    t.equal(isPrivateIp(ip), false, ip);
  }
});

t.test('isLocalhost', async (t) => {
  t.equal(isLocalhost('localhost', null), true);
  t.equal(isLocalhost('LOCALHOST.', null), true);
  t.equal(isLocalhost('app.localhost', null), true);
  t.equal(isLocalhost('127.0.0.1', null), true);
  t.equal(isLocalhost('127.1.2.3', null), true);
  t.equal(isLocalhost('[::1]', null), true);
  t.equal(isLocalhost('0.0.0.0', null), true);
  t.equal(isLocalhost(null, '127.0.0.1'), true);
  t.equal(isLocalhost('example.com', '::1'), true);
  t.equal(isLocalhost('example.com', '8.8.8.8'), false);
  t.equal(isLocalhost('localhost.example.com', null), false);
  t.equal(isLocalhost('192.168.1.5', null), false, 'a LAN address is not localhost');
  t.equal(isLocalhost(null, null), false);
});
