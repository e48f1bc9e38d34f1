import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually';
import { freePort } from './service-process';
import { repositoryRoot } from './shared-paths';

/** The example configuration operators copy; the suite runs this file, with only its marked lines replaced. */
export const NGINX_EXAMPLE = join(repositoryRoot(), 'deploy', 'nginx.conf');

/** A certificate and key for nginx to terminate TLS with (test/support/self-signed-certificate.ts). */
export interface NginxTls {
  certPath: string;
  keyPath: string;
}

/** One line of the access log (format `stt_upstream`). */
export interface AccessLogLine {
  request: string;
  status: number;
  /** `127.0.0.1:port` of the API process that answered (the last one tried, when nginx moved on). */
  upstream: string;
  upstreamStatus: string;
  requestId: string;
}

/**
 * deploy/nginx.conf with its three marked lines replaced: the upstream's API processes, the port, the access log.
 * Throws when a marked line is missing, so the example and the suite cannot drift apart.
 */
export function renderExample(
  upstreams: readonly number[],
  port: number,
  accessLog: string,
  tls: NginxTls | null = null,
): string {
  const example = readFileSync(NGINX_EXAMPLE, 'utf8');
  const servers = example.match(/^ *server \S+ (.*); *# stt: API processes$/gm) ?? [];
  if (servers.length === 0) throw new Error(`${NGINX_EXAMPLE}: no "# stt: API processes" server line`);
  const serverOptions = /^ *server \S+ (.*); *#/.exec(servers[0] ?? '')?.[1] ?? '';
  const replacements: Array<[RegExp, string]> = [
    [
      /^ *listen \S+; *# stt: listen$/m,
      tls
        ? `    listen 127.0.0.1:${port} ssl;\n    ssl_certificate ${tls.certPath};\n    ssl_certificate_key ${tls.keyPath};`
        : `    listen 127.0.0.1:${port};`,
    ],
    [/^ *access_log \S+ stt_upstream; *# stt: access log$/m, `    access_log ${accessLog} stt_upstream;`],
  ];
  let rendered = example;
  for (const [pattern, replacement] of replacements) {
    if (!pattern.test(rendered)) throw new Error(`${NGINX_EXAMPLE}: no line matching ${pattern}`);
    rendered = rendered.replace(pattern, replacement);
  }
  const upstreamLines = upstreams.map((upstream) => `    server 127.0.0.1:${upstream} ${serverOptions};`);
  rendered = rendered.replace(servers.join('\n'), upstreamLines.join('\n'));
  return rendered;
}

/**
 * Debian's nginx in front of the API processes of a test: deploy/nginx.conf inside a minimal main configuration,
 * in a temporary directory, on a free loopback port; stopped at the end.
 */
export class NginxProxy {
  private child: ChildProcess | null = null;
  private output = '';
  readonly dir = mkdtempSync(join(tmpdir(), 'stt-nginx-'));
  port = 0;

  /** With `tls`, nginx terminates TLS on its port (as in front of a public deployment). */
  constructor(private readonly tls: NginxTls | null = null) {}

  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  get accessLogPath(): string {
    return join(this.dir, 'access.log');
  }

  async start(upstreams: readonly number[]): Promise<this> {
    this.port = await freePort();
    // nginx's worker processes run as another user when started by root: they must reach the temporary files.
    chmodSync(this.dir, 0o755);
    writeFileSync(
      join(this.dir, 'stt.conf'),
      renderExample(upstreams, this.port, this.accessLogPath, this.tls),
    );
    const asRoot = process.getuid?.() === 0;
    writeFileSync(
      join(this.dir, 'nginx.conf'),
      [
        ...(asRoot ? ['user root;'] : []),
        // One worker: each nginx worker keeps its own round-robin position, so with two the API that takes the next
        // request depends on which worker accepted its connection, and the test asserts the alternation.
        'worker_processes 1;',
        `pid ${join(this.dir, 'nginx.pid')};`,
        'error_log stderr warn;',
        'events { worker_connections 256; }',
        'http {',
        `  client_body_temp_path ${join(this.dir, 'client-body')};`,
        `  proxy_temp_path ${join(this.dir, 'proxy')};`,
        `  fastcgi_temp_path ${join(this.dir, 'fastcgi')};`,
        `  uwsgi_temp_path ${join(this.dir, 'uwsgi')};`,
        `  scgi_temp_path ${join(this.dir, 'scgi')};`,
        '  default_type application/octet-stream;',
        `  include ${join(this.dir, 'stt.conf')};`,
        '}',
        '',
      ].join('\n'),
    );
    const child = spawn('nginx', ['-p', this.dir, '-c', join(this.dir, 'nginx.conf'), '-g', 'daemon off;'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    await eventually(
      `nginx listening on ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`nginx exited:\n${this.output}`);
        const response = await fetch(`${this.url}/v1/health`).catch(() => null);
        return response?.status === 200;
      },
      10_000,
      50,
    );
    return this;
  }

  /** Every line of the access log so far. */
  accessLog(): AccessLogLine[] {
    let text = '';
    try {
      text = readFileSync(this.accessLogPath, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const match =
          /"(?<request>[^"]*)" (?<status>\d+) \d+ rt=\S+ upstream=(?<upstream>.*) upstream_status=(?<upstreamStatus>.*) request_id=(?<requestId>\S*)$/.exec(
            line,
          );
        if (!match?.groups) throw new Error(`unexpected access log line: ${line}`);
        const { request, status, upstream, upstreamStatus, requestId } = match.groups;
        return { request, status: Number(status), upstream, upstreamStatus, requestId };
      });
  }

  /** The access log line of the request with this X-Request-Id, once nginx has written it (when it ended). */
  async served(requestId: string): Promise<AccessLogLine> {
    return eventually(
      `the access log line of request ${requestId}`,
      async () => this.accessLog().find((line) => line.requestId === requestId),
      10_000,
      50,
    );
  }

  /** nginx's own messages (errors and warnings), for a failing test's report. */
  get messages(): string {
    return this.output;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
