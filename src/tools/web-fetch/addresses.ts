// Which network addresses web_fetch may connect to. A page the model asks for
// must not reach the user's machine, their network or a cloud metadata service
// (the classic server-side request forgery targets), so these ranges are
// refused unless turnstone.webFetch.allowPrivateNetwork is on. Judged on the
// address actually connected to, never on the host name.
import { BlockList, isIP } from 'node:net';

/** Each refused range and the words a refusal uses for it. */
const RANGES: readonly (readonly [string, number, 'ipv4' | 'ipv6', string])[] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (where cloud metadata services live)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['64:ff9b::', 96, 'ipv6', 'a NAT64 address'],
  ['64:ff9b:1::', 48, 'ipv6', 'a NAT64 address'],
  ['2002::', 16, 'ipv6', 'a 6to4 address (it embeds an IPv4 one)'],
  ['fc00::', 7, 'ipv6', 'a unique-local address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a site-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

/** Metadata services named as such (most sit in the link-local range above; these are elsewhere). */
const METADATA: readonly string[] = ['100.100.100.200', 'fd00:ec2::254'];

let lists: { family: 'ipv4' | 'ipv6'; list: BlockList; words: string }[] | undefined;

function blockLists() {
  lists ??= RANGES.map(([net, prefix, family, words]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { family, list, words };
  });
  return lists;
}

/** `::ffff:7f00:1` and `::ffff:127.0.0.1` are 127.0.0.1 on the wire; `::127.0.0.1` (IPv4-compatible) too. */
function embeddedIPv4(ip: string): string | undefined {
  const lower = ip.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower.replace(/^::/, '0:'));
  if (dotted && isIP(dotted[1]!) === 4) return dotted[1];
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/**
 * Why connecting to `ip` is refused ("a loopback address"), or undefined for a
 * public address. Anything that is not an IP address at all is refused too.
 */
export function refusedAddress(ip: string): string | undefined {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  if (METADATA.includes(bare.toLowerCase())) return 'a cloud metadata address';
  if (family === 6) {
    const v4 = embeddedIPv4(bare);
    if (v4 !== undefined) {
      const inner = refusedAddress(v4);
      return inner ?? (/^::ffff:/i.test(bare) ? undefined : 'an IPv4-compatible IPv6 address');
    }
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const { family: f, list, words } of blockLists()) {
    if (f === type && list.check(bare, type)) return words;
  }
  return undefined;
}
