import type { Request } from 'express';
import { readCookie, sessionCookieCredential } from './session-cookies';

const request = (method: string, cookie?: string): Request =>
  ({ method, headers: cookie === undefined ? {} : { cookie } }) as unknown as Request;

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
    expect(sessionCookieCredential(request(method, 'stt_session=token'))).toBe(expected);
  });
});
