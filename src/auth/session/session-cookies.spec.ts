import type { Request } from 'express';
import { ProcessConfig } from '../../common/lifecycle/process.config';
import { DashboardSessionConfig } from './dashboard-session.config';
import { loadConfiguration } from '../../config/configuration';
import { cookiesSecure, readCookie, SessionCookies } from './session-cookies';

const request = (method: string, cookie?: string): Request =>
  ({ method, headers: cookie === undefined ? {} : { cookie } }) as unknown as Request;

const slices = (environment: Record<string, string>): [DashboardSessionConfig, ProcessConfig] => {
  const configuration = loadConfiguration([DashboardSessionConfig, ProcessConfig], environment);
  return [configuration.get(DashboardSessionConfig), configuration.get(ProcessConfig)];
};

const cookies = (environment: Record<string, string>): SessionCookies =>
  new SessionCookies(...slices(environment));

describe('session cookies', () => {
  it('reads one cookie among several, decoded', () => {
    expect(readCookie(request('GET', 'a=1; stt_session=x%2Ey; b=2'), 'stt_session')).toBe('x.y');
    expect(readCookie(request('GET', 'xstt_session=1'), 'stt_session')).toBeNull();
    expect(readCookie(request('GET', 'stt_session='), 'stt_session')).toBeNull();
    expect(readCookie(request('GET', 'stt_session=%E0%A4%A'), 'stt_session')).toBeNull();
    expect(readCookie(request('GET'), 'stt_session')).toBeNull();
  });

  it.each([
    ['GET', 'token'],
    ['HEAD', 'token'],
    ['POST', null],
    ['PUT', null],
    ['PATCH', null],
    ['DELETE', null],
  ])('the session cookie authenticates %s: %s', (method, expected) => {
    expect(cookies({ NODE_ENV: 'test' }).sessionCredential(request(method, 'stt_session=token'))).toBe(
      expected,
    );
  });

  it.each([
    [{ NODE_ENV: 'production' }, true],
    [{}, true],
    [{ NODE_ENV: 'development' }, false],
    [{ NODE_ENV: 'test' }, false],
    [{ NODE_ENV: 'production', COOKIE_SECURE: 'false' }, false],
    [{ NODE_ENV: 'development', COOKIE_SECURE: 'true' }, true],
    [{ NODE_ENV: 'production', COOKIE_SECURE: '' }, true],
  ])('Secure by default outside development and test: %j → %s', (environment, secure) => {
    expect(cookiesSecure(...slices(environment))).toBe(secure);
  });

  it('names Secure cookies with the __Secure- prefix and reads them under that name only', () => {
    const secure = cookies({ NODE_ENV: 'production' });
    expect([secure.sessionName, secure.refreshName]).toEqual([
      '__Secure-stt_session',
      '__Secure-stt_refresh',
    ]);
    expect(secure.sessionCredential(request('GET', 'stt_session=planted'))).toBeNull();
    expect(secure.sessionCredential(request('GET', '__Secure-stt_session=token'))).toBe('token');
    expect(secure.refreshToken(request('POST', 'stt_refresh=planted'))).toBeNull();
    expect(secure.refreshToken(request('POST', '__Secure-stt_refresh=r'))).toBe('r');
    const plain = cookies({ NODE_ENV: 'test' });
    expect([plain.sessionName, plain.refreshName]).toEqual(['stt_session', 'stt_refresh']);
  });

  it('refuses a COOKIE_SECURE that is not a boolean at boot', () => {
    expect(() => cookies({ COOKIE_SECURE: 'maybe' })).toThrow(/COOKIE_SECURE/);
  });
});
