import { LoggingConfig } from './logging.config';
import { ProcessConfig } from '../lifecycle/process.config';
import { loadConfiguration } from '../../config/configuration';
import { createRootLogger } from './log-format';

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
