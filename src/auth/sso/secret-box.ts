import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets the service must send on (an SSO client secret, a provider's refresh token) are stored encrypted:
 * AES-256-GCM under a key derived from JWT_SECRET (HKDF, one label per use), as `v1.<iv>.<tag>.<ciphertext>`
 * (base64url). A database dump alone reveals none of them; a changed JWT_SECRET makes them unreadable (the
 * SSO settings are saved again with the client secret; sign-ins through SSO end at their next refresh).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: string, label: string) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, 'stt secret box', label, 32));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plaintext; null when the box was sealed under another key or altered. */
  open(box: string): string | null {
    const [version, iv, tag, sealed] = box.split('.');
    if (version !== 'v1' || !iv || !tag || sealed === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return null;
    }
  }
}
