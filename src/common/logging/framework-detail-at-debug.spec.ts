import { FrameworkDetailAtDebug } from './framework-detail-at-debug';

describe('FrameworkDetailAtDebug', () => {
  const calls: string[] = [];
  const record =
    (level: string) =>
    (message: unknown, ...params: unknown[]) =>
      calls.push(`${level} ${String(message)} ${params.join(',')}`);
  const logger = new FrameworkDetailAtDebug({
    log: record('log'),
    error: record('error'),
    warn: record('warn'),
    debug: record('debug'),
    verbose: record('verbose'),
    fatal: record('fatal'),
  });
  beforeEach(() => (calls.length = 0));

  it("moves Nest's per-module and per-route start-up lines to debug", () => {
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('TranscriptionsController {/v1/transcriptions}:', 'RoutesResolver');
    logger.log('Mapped {/v1/transcriptions, POST} route', 'RouterExplorer');
    expect(calls).toEqual([
      'debug AppModule dependencies initialized InstanceLoader',
      'debug TranscriptionsController {/v1/transcriptions}: RoutesResolver',
      'debug Mapped {/v1/transcriptions, POST} route RouterExplorer',
    ]);
  });

  it('passes every other line through at its own level', () => {
    logger.log('Nest application successfully started', 'NestApplication');
    logger.log('Listening on port 3000', 'Main');
    logger.warn('Mapped twice', 'RouterExplorer');
    logger.error('boom', 'stack', 'RoutesResolver');
    expect(calls).toEqual([
      'log Nest application successfully started NestApplication',
      'log Listening on port 3000 Main',
      'warn Mapped twice RouterExplorer',
      'error boom stack,RoutesResolver',
    ]);
  });
});
