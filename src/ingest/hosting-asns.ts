// Autonomous systems of hosting and cloud providers, mapped to the provider's name (read by datacenter.ts).
// Consumer-egress networks that carry real people are deliberately absent: Cloudflare 13335 (WARP) and
// Akamai 20940/36183 (iCloud Private Relay). Google 15169 is listed: it hosts Googlebot and Cloud egress.
export const HOSTING_ASNS: ReadonlyMap<number, string> = new Map([
  [16509, 'AWS'], [14618, 'AWS'], [8987, 'AWS'],
  [15169, 'Google'], [19527, 'Google'], [396982, 'Google Cloud'],
  [8075, 'Microsoft Azure'], [8068, 'Microsoft Azure'], [8069, 'Microsoft Azure'],
  [14061, 'DigitalOcean'],
  [24940, 'Hetzner'], [213230, 'Hetzner'], [212317, 'Hetzner'],
  [16276, 'OVH'],
  [63949, 'Linode'],
  [20473, 'Vultr'],
  [31898, 'Oracle Cloud'],
  [45102, 'Alibaba Cloud'], [37963, 'Alibaba Cloud'],
  [132203, 'Tencent Cloud'], [45090, 'Tencent Cloud'],
  [12876, 'Scaleway'],
  [51167, 'Contabo'],
  [36351, 'IBM Cloud'],
  [60781, 'Leaseweb'], [28753, 'Leaseweb'],
]);
