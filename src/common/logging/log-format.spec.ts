import { LoggingConfig } from './logging.config';
import { ProcessConfig } from '../lifecycle/process.config';
import { loadConfiguration } from '../../config/configuration';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import pinoHttp from 'pino-http';
import { eventually } from '../../../test/support/eventually';
import { createRootLogger, httpLogOptions } from './log-format';

function capture(env: Record<string, string> = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const configuration = loadConfiguration([LoggingConfig, ProcessConfig], { ROLE: 'worker', ...env });
  const logger = createRootLogger(configuration.get(LoggingConfig), configuration.get(ProcessConfig), {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

describe('createRootLogger', () => {
  it('writes one JSON object per line with a level name, ISO time and the process role', () => {
    const { logger, lines } = capture();
    logger.child({ requestId: 'abc-123' }).info({ transcriptionId: 't1' }, 'attempt 1 started');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        role: 'worker',
        requestId: 'abc-123',
        transcriptionId: 't1',
        msg: 'attempt 1 started',
      }),
    ]);
  });

  it('censors credentials and secrets should code ever log such an object', () => {
    const { logger, lines } = capture();
    logger.warn(
      {
        req: { headers: { authorization: 'Bearer svc_live_x', cookie: 'session=s', 'x-api-key': 'k' } },
        endpoint: { secret: 'whsec', url: 'https://h.example' },
        login: { email: 'a@b.example', password: 'hunter2' },
      },
      'oops',
    );
    const text = JSON.stringify(lines);
    for (const secret of ['svc_live_x', 'session=s', '"k"', 'whsec', 'hunter2'])
      expect(text).not.toContain(secret);
    expect(text).toContain('https://h.example');
    expect(text).toContain('a@b.example');
  });

  it("keeps LOG_LEVEL's meaning: `log` is info, `warn` drops info lines, `verbose` keeps trace", () => {
    const warnOnly = capture({ LOG_LEVEL: 'warn' });
    warnOnly.logger.info('hidden');
    warnOnly.logger.warn('shown');
    expect(warnOnly.lines.map((line) => line.msg)).toEqual(['shown']);
    const verbose = capture({ LOG_LEVEL: 'verbose' });
    verbose.logger.trace('very detailed');
    expect(verbose.lines).toHaveLength(1);
  });
});

describe('httpLogOptions (pino-http)', () => {
  it('writes one request line and never serializes the request itself: its headers are not even read', async () => {
    const { logger, lines } = capture({ ROLE: 'api' });
    const middleware = pinoHttp(httpLogOptions(logger));
    let headerReads = 0;
    const server = createServer((request, response) => {
      const headers = request.headers;
      Object.defineProperty(request, 'headers', {
        get: (): IncomingHttpHeaders => {
          headerReads += 1;
          return headers;
        },
      });
      (request as typeof request & { id: string }).id = 'req-1';
      middleware(request, response, () => response.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve, reject) => {
        httpRequest({
          port,
          path: '/v1/health?token=secret',
          headers: { authorization: 'Bearer svc_live_x' },
        })
          .on('response', (response) => response.resume().on('end', resolve))
          .on('error', reject)
          .end();
      });
      // The line is written when the response finishes, on the server's side.
      await eventually('the request line', () => Promise.resolve(lines.length > 0), 5_000, 5);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        requestId: 'req-1',
        method: 'GET',
        path: '/v1/health',
        status: 200,
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('req');
    expect(JSON.stringify(lines)).not.toContain('svc_live_x');
    expect(headerReads).toBe(0);
  });
});
