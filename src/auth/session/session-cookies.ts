import type { CookieOptions, Request, Response } from 'express';

/** The access JWT; authenticates safe methods only (EventSource, `<audio src>`), never a write. */
export const SESSION_COOKIE = 'stt_session';
/** The rotating refresh token; sent to /v1/auth only. */
export const REFRESH_COOKIE = 'stt_refresh';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The value of one cookie of the request (no cookie-parser middleware: this is the only cookie read). */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    const value = pair.slice(separator + 1).trim();
    try {
      return value === '' ? null : decodeURIComponent(value);
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The session cookie's token, for GET and HEAD only: a cross-site form or fetch can make the browser send
 * cookies with a write, never read the answer to a read (SameSite=Strict too), so writes need the header.
 */
export function sessionCookieCredential(request: Request): string | null {
  return SAFE_METHODS.has(request.method) ? readCookie(request, SESSION_COOKIE) : null;
}

export interface CookieSettings {
  secure: boolean;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

function base(settings: CookieSettings, path: string): CookieOptions {
  return { httpOnly: true, sameSite: 'strict', secure: settings.secure, path };
}

export function setSessionCookies(
  response: Response,
  settings: CookieSettings,
  tokens: { accessToken: string; refreshToken: string },
): void {
  response.cookie(SESSION_COOKIE, tokens.accessToken, {
    ...base(settings, '/v1'),
    maxAge: settings.accessTtlSeconds * 1000,
  });
  response.cookie(REFRESH_COOKIE, tokens.refreshToken, {
    ...base(settings, '/v1/auth'),
    maxAge: settings.refreshTtlSeconds * 1000,
  });
}

export function clearSessionCookies(response: Response, settings: CookieSettings): void {
  response.clearCookie(SESSION_COOKIE, base(settings, '/v1'));
  response.clearCookie(REFRESH_COOKIE, base(settings, '/v1/auth'));
}
