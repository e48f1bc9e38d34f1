import { Injectable } from '@nestjs/common';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AuthConfig } from '../auth.config';

/**
 * Device tokens (the `stt_device` cookie, OWASP's "device cookie"): handed out on every successful sign-in,
 * bound to the account's email by an HMAC, so a later attempt that carries one proves the browser signed in
 * to this account before. Stateless: nothing is stored, and a new JWT_SECRET makes every device new again.
 */
@Injectable()
export class KnownDeviceService {
  private readonly key: Buffer;

  constructor(config: AuthConfig) {
    // A key of its own, derived from JWT_SECRET: a device token can never pass as anything else.
    this.key = createHmac('sha256', config.JWT_SECRET).update('stt-known-device-v1').digest();
  }

  /** A new token for a browser that just signed in to the account of `email` (normalised). */
  issue(email: string): string {
    const id = randomBytes(16).toString('base64url');
    return `${id}.${this.mac(id, email)}`;
  }

  /** The device's id when `token` was issued for this email, else null (none, forged, another account's). */
  recognise(email: string, token: string | null): string | null {
    const [id, mac, ...rest] = (token ?? '').split('.');
    if (!id || !mac || rest.length > 0) return null;
    const expected = Buffer.from(this.mac(id, email));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
  }

  private mac(id: string, email: string): string {
    return createHmac('sha256', this.key).update(`${id}\n${email}`).digest('base64url');
  }
}
