import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a callback receiver got. */
export interface ReceivedCallback {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON (null when it is not JSON). */
  body: unknown;
}

/**
 * A loopback HTTP server standing for an integrator's callback endpoint (a remote third party, speaking plain
 * HTTP): it records every request and answers each path with the status its `answer` gives (200 by default).
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  private readonly answers = new Map<string, (nth: number) => number>();
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(raw);
        } catch {
          body = null;
        }
        this.received.push({ method: request.method ?? '', path, headers: request.headers, body });
        const status = (this.answers.get(path) ?? (() => 200))(this.to(path).length);
        response.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** How `path` is answered: the status for its nth request (1-based). */
  answer(path: string, status: (nth: number) => number): void {
    this.answers.set(path, status);
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  to(path: string): ReceivedCallback[] {
    return this.received.filter((request) => request.path === path);
  }

  /** What reached `path`, or null while nothing has (a probe for `eventually`). */
  arrived(path: string, count = 1): ReceivedCallback[] | null {
    const received = this.to(path);
    return received.length >= count ? received : null;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
