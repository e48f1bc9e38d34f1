import { Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { OutboundUrlConfig } from './outbound-url.config';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Ranges that ipaddr.js 1.9.1 still calls `unicast` but that are not public destinations: benchmarking
 * (198.18.0.0/15), discard-only (100::/64), local-use NAT64 (64:ff9b:1::/48, RFC 8215: never global),
 * ORCHID (2001:10::/28, 2001:20::/28) and deprecated site-local (fec0::/10).
 */
const NOT_PUBLIC_UNICAST_V4 = ['198.18.0.0/15'].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));
const NOT_PUBLIC_UNICAST_V6 = ['100::/64', '64:ff9b:1::/48', '2001:10::/28', '2001:20::/28', 'fec0::/10'].map(
  (cidr) => ipaddr.IPv6.parseCIDR(cidr),
);

function ipv4From(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries and would be routed to, or null when it carries none:
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4
 * (2002:aabb:ccdd::), Teredo (2001:0:server:…:client XOR ffff:ffff) and IPv4-compatible (::a.b.c.d).
 */
function embeddedIPv4(address: IPv6): IPv4[] | null {
  const parts = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [ipv4From(parts[6], parts[7])];
    case '6to4':
      return [ipv4From(parts[1], parts[2])];
    case 'teredo':
      return [ipv4From(parts[2], parts[3]), ipv4From(parts[6] ^ 0xffff, parts[7] ^ 0xffff)];
    case 'unicast':
      return parts.slice(0, 6).every((part) => part === 0) ? [ipv4From(parts[6], parts[7])] : null;
    default:
      return null;
  }
}

function isPublicIPv4(address: IPv4): boolean {
  return address.range() === 'unicast' && !NOT_PUBLIC_UNICAST_V4.some((range) => address.match(range));
}

function isPublicIPv6(address: IPv6): boolean {
  const embedded = embeddedIPv4(address);
  if (embedded) return embedded.every(isPublicIPv4);
  return address.range() === 'unicast' && !NOT_PUBLIC_UNICAST_V6.some((range) => address.match(range));
}

/**
 * A webhook may only reach public unicast addresses (SSRF): not loopback, private, link-local (cloud
 * metadata), CGNAT, multicast, documentation or reserved ranges, nor an IPv6 form that embeds such an
 * IPv4 address. ipaddr.js classifies the ranges; the embedded IPv4 is classified as IPv4.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const parsed = parseAddress(family === 6 ? canonicalIPv6(address) : address);
  if (!parsed) return false;
  return parsed.kind() === 'ipv4' ? isPublicIPv4(parsed as IPv4) : isPublicIPv6(parsed as IPv6);
}

/** ipaddr.js 1.9.1 reads a dotted IPv4 tail only after ::ffff:, so `::a.b.c.d` is first rewritten in hex. */
function canonicalIPv6(address: string): string {
  if (!address.includes('.')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}

/** Whatever cannot be parsed is treated as not public (the check fails closed). */
function parseAddress(address: string): IPv4 | IPv6 | null {
  try {
    return ipaddr.parse(address);
  } catch {
    return null;
  }
}

export type TargetVerdict = { allowed: true } | { allowed: false; reason: string };

const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const URI_PATH_QUERY_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
const BROKEN_PERCENT_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Whether the URL as sent is an RFC 3986 URI (what `format: uri` in the contract means): ASCII only, valid
 * percent-escapes, brackets only around an IPv6 host, at most one `#`.
 */
function isRfc3986Uri(raw: string, url: URL): boolean {
  const pathQueryFragment = (url.pathname + url.search + url.hash).split('#');
  return (
    URI_CHARACTERS.test(raw) &&
    !BROKEN_PERCENT_ESCAPE.test(raw) &&
    pathQueryFragment.length <= 2 &&
    pathQueryFragment.every((part) => URI_PATH_QUERY_CHARACTERS.test(part))
  );
}

/**
 * Where a webhook may be sent. `checkUrl` is the part without DNS (scheme, credentials, an IP literal
 * host): it runs at registration and before every attempt. `check` adds resolving the host name at
 * registration; at delivery the connection's own resolver applies `isPublicAddress` to the addresses it
 * connects to (WebhookHttpClient), so a DNS failure there is a transient error, not a refusal.
 */
@Injectable()
export class WebhookTargetPolicy {
  constructor(private readonly config: OutboundUrlConfig) {}

  checkUrl(rawUrl: string): TargetVerdict {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return { allowed: false, reason: 'must be an absolute https URL' };
    }
    const allowPrivate = this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
      return {
        allowed: false,
        reason: allowPrivate ? 'must use http or https' : 'must use https (deliveries are HTTPS POSTs)',
      };
    }
    if (url.username || url.password) return { allowed: false, reason: 'must not contain credentials' };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) return refusedAddress(host);
    return { allowed: true };
  }

  /**
   * At registration: the URL must be an RFC 3986 URI as sent (the contract's `format: uri`; a non-ASCII URL
   * is refused with its ASCII form as the hint, never rewritten), then `checkUrl`, then every address the
   * host name resolves to must be public.
   */
  async check(rawUrl: string): Promise<TargetVerdict> {
    const verdict = this.checkUrl(rawUrl);
    if (!verdict.allowed) return verdict;
    const url = new URL(rawUrl);
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(rawUrl) && isRfc3986Uri(url.href, url)) {
      return { allowed: false, reason: `must be ASCII (RFC 3986): send ${url.href}` };
    }
    if (!isRfc3986Uri(rawUrl, url)) return { allowed: false, reason: 'must be a valid URI (RFC 3986)' };
    if (this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS) return verdict;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) return verdict;
    let addresses: string[];
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      return { allowed: false, reason: `host ${host} could not be resolved` };
    }
    return addresses.every(isPublicAddress) ? verdict : NOT_PUBLIC;
  }
}

function refusedAddress(address: string): TargetVerdict {
  return {
    allowed: false,
    reason: `resolves to ${address}, a loopback, private, link-local or reserved address`,
  };
}

/**
 * A host name whose answer is not public. The address it resolved to is never named: echoing it would let any
 * key holder map internal DNS. (An IP literal is named by `refusedAddress`: the caller sent it.)
 */
const NOT_PUBLIC: TargetVerdict = {
  allowed: false,
  reason: 'resolves to a loopback, private, link-local or reserved address: not a public address',
};
