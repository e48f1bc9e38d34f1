import { AddressInfo, createConnection, createServer, Server, Socket } from 'node:net';

/**
 * How the proxy treats traffic:
 * - `pass`: forwards both ways.
 * - `blackhole`: accepts new connections and swallows what existing and new ones send; nothing reaches the
 *   target and nothing comes back (a network partition or a hung server: clients only learn by timeouts).
 * - `reset`: destroys every open connection and refuses new ones: the listener closes, so connecting fails
 *   with ECONNREFUSED (a crashed or restarting server); `pass` listens again on the same port.
 */
export type FaultMode = 'pass' | 'blackhole' | 'reset';

interface Link {
  client: Socket;
  upstream: Socket | null;
  /** Bytes stopped flowing on this link; it cannot carry a protocol exchange any more. */
  blackholed: boolean;
  /** The pending connection to the target of a link held back by `connectDelayMs`. */
  delayed?: NodeJS.Timeout;
}

/**
 * A TCP proxy on a random loopback port in front of a real service (PostgreSQL, Redis), used to inject
 * outages for one test run only: the shared server itself is never stopped.
 */
export class TcpFaultProxy {
  private server: Server | null = null;
  private readonly links = new Set<Link>();
  private currentMode: FaultMode = 'pass';
  private listeningPort = 0;

  /**
   * `connectDelayMs`: each new connection reaches the target only after this long (a slow, distant server);
   * a function gives each connection its own delay.
   */
  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
    private readonly options: { connectDelayMs?: number | (() => number) } = {},
  ) {}

  get mode(): FaultMode {
    return this.currentMode;
  }

  get port(): number {
    if (this.listeningPort === 0) throw new Error('proxy not started');
    return this.listeningPort;
  }

  /** The same URL with host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  async start(): Promise<this> {
    await this.listen();
    return this;
  }

  async setMode(mode: FaultMode): Promise<void> {
    this.currentMode = mode;
    if (mode === 'reset') {
      for (const link of this.links) this.destroy(link);
      await this.closeListener();
      return;
    }
    if (!this.server) await this.listen();
    if (mode === 'blackhole') {
      for (const link of this.links) this.silence(link);
    } else {
      // A half-delivered protocol exchange cannot be resumed: silenced links are cut when traffic passes again.
      for (const link of this.links) if (link.blackholed) this.destroy(link);
    }
  }

  /** Open client connections (for assertions and debugging). */
  get connectionCount(): number {
    return this.links.size;
  }

  async stop(): Promise<void> {
    for (const link of this.links) this.destroy(link);
    await this.closeListener();
  }

  /** The first start takes a random free port; later ones (after `reset`) take the same port again. */
  private async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listeningPort, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.listeningPort = (server.address() as AddressInfo).port;
  }

  private async closeListener(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const link: Link = { client, upstream: null, blackholed: false };
    this.links.add(link);
    client.on('error', () => this.destroy(link));
    client.on('close', () => this.destroy(link));
    if (this.currentMode === 'reset') {
      this.destroy(link);
      return;
    }
    if (this.currentMode === 'blackhole') {
      this.silence(link);
      return;
    }
    const delay =
      typeof this.options.connectDelayMs === 'function'
        ? this.options.connectDelayMs()
        : (this.options.connectDelayMs ?? 0);
    if (delay === 0) return this.forward(link);
    client.pause();
    link.delayed = setTimeout(() => this.forward(link), delay);
  }

  private forward(link: Link): void {
    const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
    link.upstream = upstream;
    upstream.on('error', () => this.destroy(link));
    upstream.on('close', () => this.destroy(link));
    link.client.pipe(upstream);
    upstream.pipe(link.client);
  }

  /** Reads and drops in both directions: each side sees an open connection that never answers. */
  private silence(link: Link): void {
    link.blackholed = true;
    link.client.unpipe();
    link.upstream?.unpipe();
    link.client.resume();
    link.upstream?.resume();
  }

  private destroy(link: Link): void {
    if (!this.links.delete(link)) return;
    clearTimeout(link.delayed);
    link.client.destroy();
    link.upstream?.destroy();
  }
}
