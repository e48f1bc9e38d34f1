import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A forward proxy on 127.0.0.1, as corporate networks run them: `CONNECT host:port` opens a raw tunnel (for
 * https), and a request whose target is an absolute URI is forwarded (for plain http). It records what it was
 * asked, so a test can tell whether a client went through it or around it. `names` are host names only the
 * proxy can resolve (as on a network where clients have no DNS of their own): a client that resolves such a name
 * itself instead of asking the proxy fails.
 */
export class ConnectProxy {
  /** `host:port` of each CONNECT. */
  readonly tunnels: string[] = [];
  /** Absolute URI of each forwarded plain-http request. */
  readonly forwarded: string[] = [];
  private readonly sockets = new Set<net.Socket>();
  private readonly server = http.createServer((req, res) => this.forward(req, res));

  constructor(private readonly names: Readonly<Record<string, string>> = {}) {
    this.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) =>
      this.tunnel(req, client, head),
    );
    this.server.on('connection', (socket: net.Socket) => this.track(socket));
  }

  /** Starts listening; resolves with the proxy URL (http://127.0.0.1:port). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.tunnels.length = 0;
    this.forwarded.length = 0;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const authority = req.url ?? '';
    this.tunnels.push(authority);
    const [host, port] = authority.split(':');
    const upstream = net.connect(Number(port), this.names[host] ?? host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = req.url ?? '';
    if (!/^http:\/\//.test(target)) {
      res.writeHead(400).end('a proxy wants an absolute URI');
      return;
    }
    this.forwarded.push(target);
    const url = new URL(target);
    const upstream = http.request(
      {
        hostname: this.names[url.hostname] ?? url.hostname,
        port: url.port || 80,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: req.headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}
