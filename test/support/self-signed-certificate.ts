import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';

/** A certificate for 127.0.0.1 (openssl), its key, and their files. */
export interface SelfSignedCertificate {
  certPath: string;
  keyPath: string;
  cert: string;
}

export function selfSignedCertificate(): SelfSignedCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'stt-tls-'));
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyPath, '-out', certPath,
  ], { stdio: 'ignore' }); // prettier-ignore
  return { certPath, keyPath, cert: readFileSync(certPath, 'utf8') };
}

/**
 * Makes this process's TLS clients (fetch, ws, any SDK that uses them) trust `certificate` beside the system's
 * authorities, as NODE_EXTRA_CA_CERTS would at start-up; the returned function restores the previous set.
 */
export function trustInThisProcess(certificate: SelfSignedCertificate): () => void {
  // Node 24's API (22.15+), not yet in the pinned @types/node.
  const store = tls as unknown as {
    getCACertificates(kind: 'default'): string[];
    setDefaultCACertificates(certificates: string[]): void;
  };
  const previous = store.getCACertificates('default');
  store.setDefaultCACertificates([...previous, certificate.cert]);
  return () => store.setDefaultCACertificates(previous);
}
