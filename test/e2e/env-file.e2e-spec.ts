import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, ServiceProcess } from '../support/service-process';
import { baseTestEnvironment } from '../support/test-environment';

const run = promisify(execFile);
const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/**
 * `node dist/main.js` and `node dist/cli.js` as an operator runs them after the quick start: from a directory
 * holding `.env`, with nothing exported. Variables set in the real environment win over the file's.
 */
describe('.env in the working directory', () => {
  let directory: string;
  const secret = 'env-file-test-secret-0123456789abcdef';

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'stt-env-file-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  /** The test environment with the given variables left to the file. */
  function environmentWithout(...names: string[]): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = { ...process.env, ...baseTestEnvironment() };
    for (const name of ['ENV_FILE', ...names]) delete env[name];
    return env;
  }

  it('the CLI reads JWT_SECRET and DATABASE_URL from ./.env and names the file on stderr', async () => {
    const { DATABASE_URL } = baseTestEnvironment();
    writeFileSync(
      join(directory, '.env'),
      `# written by the quick start\nJWT_SECRET=${secret}\nDATABASE_URL=${DATABASE_URL}\n`,
    );
    const { stdout, stderr } = await run('node', [CLI, 'workspace:create', '--name', 'From .env'], {
      cwd: directory,
      env: environmentWithout('JWT_SECRET', 'DATABASE_URL'),
    });
    expect(JSON.parse(stdout)).toMatchObject({ apiKey: expect.stringMatching(/^svc_live_/) });
    expect(stderr.trim()).toBe(`Read settings from ${join(directory, '.env')} (2 variables from the file)`);
  });

  it('without .env the CLI refuses as before, naming the missing variable', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'stt-no-env-file-'));
    try {
      const attempt = run('node', [CLI, 'models:list'], {
        cwd: empty,
        env: environmentWithout('JWT_SECRET'),
      });
      await expect(attempt).rejects.toMatchObject({ stderr: expect.stringContaining('JWT_SECRET=null') });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('the service reads ./.env, but PORT from the command line wins, and it logs which file it read', async () => {
    const filePort = await freePort();
    const commandLinePort = await freePort();
    writeFileSync(join(directory, '.env'), `PORT=${filePort}\nJWT_SECRET=${secret}\nROLE=all\n`);
    const service = await new ServiceProcess(
      { PORT: String(commandLinePort) },
      { cwd: directory, unset: ['ENV_FILE', 'JWT_SECRET', 'ROLE'] },
    ).start();
    try {
      expect(service.output).toContain(`Listening on port ${commandLinePort} (ROLE=all)`);
      expect(service.output).toContain(
        `Read settings from ${join(directory, '.env')} (2 variables from the file; the environment's own PORT won over the file's)`,
      );
      const health = await fetch(`http://127.0.0.1:${commandLinePort}/v1/health`);
      expect(health.status).toBe(200);
      await expect(fetch(`http://127.0.0.1:${filePort}/v1/health`)).rejects.toThrow();
    } finally {
      await service.stop();
    }
  }, 60_000);
});
