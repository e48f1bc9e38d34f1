import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a client address stands for when sign-ins are counted: an IPv4 address as it is (IPv4-mapped
 * IPv6 too), an IPv6 address by its /64, since one subscriber gets a whole /64 and could otherwise give every
 * guess an address of its own. Anything else (`unknown`) is returned unchanged.
 */
export function clientNetwork(ip: string): string {
  const address = ip.split('%')[0].toLowerCase();
  if (isIPv4(address) || !isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1];
  const [head, tail] = address.split('::');
  const groups = (part: string | undefined): string[] =>
    part ? part.split(':').flatMap((group) => (group.includes('.') ? dottedToGroups(group) : [group])) : [];
  const first = groups(head);
  const last = groups(tail);
  const all = [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return `${all
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

function dottedToGroups(dotted: string): string[] {
  const [a, b, c, d] = dotted.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

/**
 * The network an API key is remembered to be used from (`api_key.used_from_new_network`): an IPv4 address by
 * its /24 (IPv4-mapped IPv6 too), an IPv6 address by its /64 — a server moving within its provider's block is
 * not news, a use from another provider is. Null for anything that is not an address.
 */
export function keyNetwork(ip: string): string | null {
  const network = clientNetwork(ip);
  if (isIPv4(network)) return `${network.split('.').slice(0, 3).join('.')}.0/24`;
  return network.endsWith('::/64') ? network : null;
}
