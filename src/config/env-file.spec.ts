import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigValidationError } from './configuration';
import { describeProcessSettings, loadProcessSettings } from './env-file';

describe('loadProcessSettings', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'env-file-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const writeEnv = (text: string, name = '.env') => writeFileSync(join(directory, name), text);

  it('reads ./.env and lets the real environment win for every variable it sets', () => {
    writeEnv('# a comment\nPORT=3000\nJWT_SECRET="from the file"\nexport LOG_LEVEL=warn\nROLE=all\n');
    const settings = loadProcessSettings({ PORT: '3300', ROLE: 'worker', HOME: '/root' }, directory);
    expect(settings.environment).toEqual({
      PORT: '3300',
      ROLE: 'worker',
      JWT_SECRET: 'from the file',
      LOG_LEVEL: 'warn',
      HOME: '/root',
    });
    expect(settings.file).toBe(join(directory, '.env'));
    expect(settings.fromFile).toEqual(['JWT_SECRET', 'LOG_LEVEL']);
    expect(settings.overridden).toEqual(['PORT', 'ROLE']);
    expect(describeProcessSettings(settings)).toBe(
      `Read settings from ${join(directory, '.env')} (2 variables from the file; the environment's own PORT, ROLE won over the file's)`,
    );
  });

  it('an empty value in the environment still wins over the file', () => {
    writeEnv('METRICS_TOKEN=from-file\n');
    expect(loadProcessSettings({ METRICS_TOKEN: '' }, directory).environment.METRICS_TOKEN).toBe('');
  });

  it('without a .env file the environment is used as it is and no file is named', () => {
    const environment = { PORT: '3300' };
    const settings = loadProcessSettings(environment, directory);
    expect(settings).toEqual({ environment, file: null, fromFile: [], overridden: [] });
    expect(describeProcessSettings(settings)).toBe(
      'No .env file read: settings come from the environment only',
    );
  });

  it('ENV_FILE names another file (relative to the working directory), which must exist', () => {
    writeEnv('PORT=4000\n', 'staging.env');
    writeEnv('PORT=3000\n');
    const settings = loadProcessSettings({ ENV_FILE: 'staging.env' }, directory);
    expect(settings.environment.PORT).toBe('4000');
    expect(settings.file).toBe(join(directory, 'staging.env'));
    expect(() => loadProcessSettings({ ENV_FILE: 'missing.env' }, directory)).toThrow(ConfigValidationError);
    expect(() => loadProcessSettings({ ENV_FILE: 'missing.env' }, directory)).toThrow(
      'ENV_FILE="missing.env": no such file',
    );
  });

  it('ENV_FILE=none reads no file even when ./.env exists', () => {
    writeEnv('PORT=3000\n');
    const settings = loadProcessSettings({ ENV_FILE: 'none' }, directory);
    expect(settings.file).toBeNull();
    expect(settings.environment).toEqual({ ENV_FILE: 'none' });
  });

  it('the file is parsed, never executed', () => {
    writeEnv('JWT_SECRET=$(touch pwned)\n');
    expect(loadProcessSettings({}, directory).environment.JWT_SECRET).toBe('$(touch pwned)');
  });
});
