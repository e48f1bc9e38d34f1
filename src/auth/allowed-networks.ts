import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { AuthOutcome } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';

/** How many networks one key may list. */
export const MAX_ALLOWED_NETWORKS = 20;

/**
 * A CIDR block as a key's allowed network, in its canonical spelling (`10.1.0.0/16`, `2001:db8::/32`), or null
 * when the text is not one. An address without a prefix is the single address (/32 or /128). Host bits must be
 * zero (`10.1.2.3/16` is refused: it usually means a typing mistake).
 */
export function parseCidr(text: string): string | null {
  const [address, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined || address === undefined) return null;
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
  if (family === null) return null;
  const bits = family === 'ipv4' ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return null;
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  // Host bits set: the network's own first address is not the one written.
  const canonical = `${address.toLowerCase()}/${prefix}`;
  return list.check(address, family) && hostBitsZero(address, prefix, family) ? canonical : null;
}

function hostBitsZero(address: string, prefix: number, family: 'ipv4' | 'ipv6'): boolean {
  const bytes = family === 'ipv4' ? address.split('.').map(Number) : ipv6Bytes(address);
  for (let bit = prefix; bit < bytes.length * 8; bit += 1) {
    if ((bytes[bit >> 3] >> (7 - (bit & 7))) & 1) return false;
  }
  return true;
}

function ipv6Bytes(address: string): number[] {
  const [head, tail] = address.split('::');
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const expand = (part: string): number[] => {
    if (part.includes('.')) return part.split('.').map(Number);
    const value = parseInt(part, 16);
    return [value >> 8, value & 0xff];
  };
  const first = groups(head).flatMap(expand);
  const last = tail === undefined ? [] : groups(tail).flatMap(expand);
  return [...first, ...Array<number>(16 - first.length - last.length).fill(0), ...last];
}

/** Whether a client address lies in one of the networks (an IPv4-mapped IPv6 address counts as its IPv4). */
export function networksAllow(networks: readonly string[], clientIp: string | null | undefined): boolean {
  if (!clientIp) return false;
  const address = clientIp
    .split('%')[0]
    .toLowerCase()
    .replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
  if (family === null) return false;
  const list = new BlockList();
  for (const network of networks) {
    const [base, prefix] = network.split('/');
    list.addSubnet(base, Number(prefix), isIPv4(base) ? 'ipv4' : 'ipv6');
  }
  return list.check(address, family);
}

/**
 * The one rule of a key's allowed networks, for HTTP requests and WebSocket upgrades alike: a key that lists
 * networks authenticates only from them; from elsewhere the call is refused 403 as if it had no rights at all.
 */
export function restrictToAllowedNetworks(
  outcome: AuthOutcome,
  clientIp: string | null | undefined,
): AuthOutcome {
  if (outcome.kind !== 'authenticated') return outcome;
  const networks = outcome.principal.allowedNetworks;
  if (!networks || networks.length === 0 || networksAllow(networks, clientIp)) return outcome;
  return {
    kind: 'failed',
    problem: new ProblemException(
      'forbidden',
      `This API key is accepted only from its allowed networks; this request came from ${clientIp ?? 'an unknown address'}.`,
    ),
  };
}
