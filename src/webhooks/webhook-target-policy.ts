import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppConfig } from '../config/app-config';

/** Address ranges a webhook must never reach (SSRF): loopback, private, link-local (cloud metadata), etc. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
// IPv4-mapped IPv6 (::ffff:a.b.c.d) is unwrapped in isPublicAddress: Node's BlockList would match every IPv4
// address against a ::ffff:0:0/96 rule.
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return isPublicAddress(mapped[1]);
  }
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type TargetVerdict = { allowed: true } | { allowed: false; reason: string };

/** Checked at registration and again before every delivery (DNS can change in between). */
@Injectable()
export class WebhookTargetPolicy {
  constructor(private readonly config: AppConfig) {}

  async check(rawUrl: string): Promise<TargetVerdict> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return { allowed: false, reason: 'must be an absolute http(s) URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return { allowed: false, reason: 'must use http or https' };
    }
    if (url.username || url.password) return { allowed: false, reason: 'must not contain credentials' };
    if (this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS) return { allowed: true };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host)
        ? [host]
        : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      return { allowed: false, reason: `host ${host} could not be resolved` };
    }
    const blocked = addresses.find((address) => !isPublicAddress(address));
    if (blocked !== undefined) {
      return {
        allowed: false,
        reason: `resolves to ${blocked}, a loopback, private, link-local or reserved address`,
      };
    }
    return { allowed: true };
  }
}
