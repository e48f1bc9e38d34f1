import { Injectable, Logger } from '@nestjs/common';
import type { CookieOptions, Request, Response } from 'express';
import { ProcessConfig } from '../../common/lifecycle/process.config';
import { DashboardSessionConfig } from './dashboard-session.config';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_MS, DEVICE_COOKIE_PATH } from './device-cookie';
import { LOGIN_STATE_TTL_SECONDS } from '../sso/sso.service';

/** The access JWT; authenticates safe methods only (EventSource, `<audio src>`), never a write. */
export const SESSION_COOKIE = 'stt_session';
/** The rotating refresh token; sent to /v1/auth only. */
export const REFRESH_COOKIE = 'stt_refresh';
/**
 * A hint the dashboard's page can read (not httpOnly, no secret: its value is `1`): a refresh cookie was set
 * and not cleared, so the page asks /v1/auth/refresh for a session on load only when one may exist instead
 * of probing every visitor into a 401 (which the browser logs as a console error).
 */
export const SIGNED_IN_HINT_COOKIE = 'stt_signed_in';
/** The dashboard's path: the hint is sent to (and readable by) its pages only. */
const DASHBOARD_PATH = '/app';
const SSO_CALLBACK_PATH = '/v1/auth/sso/callback';
/**
 * Browsers keep a cookie of this name only when it is `Secure` and was set over HTTPS, so a page on plain
 * HTTP (or a network attacker injecting one) cannot plant a session cookie the service would read.
 */
export const SECURE_COOKIE_PREFIX = '__Secure-';

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

/** COOKIE_SECURE, or when unset: Secure everywhere but on a developer's machine and in tests. */
export function cookiesSecure(
  config: Pick<DashboardSessionConfig, 'COOKIE_SECURE'>,
  processConfig: Pick<ProcessConfig, 'NODE_ENV'>,
): boolean {
  return config.COOKIE_SECURE ?? !['development', 'test'].includes(processConfig.NODE_ENV);
}

/**
 * The dashboard's cookies: their names (one source: `__Secure-` prefixed when Secure) and attributes,
 * and reading them from a request. Everything that sets or reads them goes through here.
 */
@Injectable()
export class SessionCookies {
  readonly secure: boolean;
  readonly sessionName: string;
  readonly refreshName: string;
  readonly signedInHintName: string;
  /** The known-device cookie of the sign-in throttle (device-cookie.ts), prefixed like the other two. */
  readonly deviceName: string;
  /** The SSO login's state cookie (setSsoState). */
  readonly ssoStateName: string;
  private readonly logger = new Logger(SessionCookies.name);

  constructor(
    private readonly config: DashboardSessionConfig,
    private readonly processConfig: ProcessConfig,
  ) {
    this.secure = cookiesSecure(config, processConfig);
    const prefix = this.secure ? SECURE_COOKIE_PREFIX : '';
    this.sessionName = `${prefix}${SESSION_COOKIE}`;
    this.refreshName = `${prefix}${REFRESH_COOKIE}`;
    this.signedInHintName = `${prefix}${SIGNED_IN_HINT_COOKIE}`;
    this.deviceName = `${prefix}${DEVICE_COOKIE}`;
    this.ssoStateName = `${prefix}stt_sso`;
  }

  /** At the boot of a process that serves HTTP: plain-HTTP cookies in production are a choice to see. */
  warnWhenInsecure(): void {
    const environment = this.processConfig.NODE_ENV;
    if (this.secure || environment !== 'production') return;
    this.logger.warn(
      `COOKIE_SECURE=false with NODE_ENV=${environment}: the session cookies are sent over plain HTTP too ` +
        '(no Secure, no __Secure- prefix), where anyone on the network can read and replay them. ' +
        'Serve the service over HTTPS and unset COOKIE_SECURE.',
    );
  }

  /**
   * The session cookie's token, for GET and HEAD only: a cross-site form or fetch can make the browser send
   * cookies with a write, never read the answer to a read (SameSite=Strict too), so writes need the header.
   */
  sessionCredential(request: Request): string | null {
    return SAFE_METHODS.has(request.method) ? readCookie(request, this.sessionName) : null;
  }

  refreshToken(request: Request): string | null {
    return readCookie(request, this.refreshName);
  }

  set(response: Response, tokens: { accessToken: string; refreshToken: string }): void {
    response.cookie(this.sessionName, tokens.accessToken, {
      ...this.attributes('/v1'),
      maxAge: this.config.ACCESS_TOKEN_TTL_SECONDS * 1000,
    });
    response.cookie(this.refreshName, tokens.refreshToken, {
      ...this.attributes('/v1/auth'),
      maxAge: this.config.REFRESH_TOKEN_TTL_SECONDS * 1000,
    });
    response.cookie(this.signedInHintName, '1', {
      ...this.attributes(DASHBOARD_PATH),
      httpOnly: false,
      maxAge: this.config.REFRESH_TOKEN_TTL_SECONDS * 1000,
    });
  }

  deviceToken(request: Request): string | null {
    return readCookie(request, this.deviceName);
  }

  setDevice(response: Response, token: string): void {
    response.cookie(this.deviceName, token, {
      ...this.attributes(DEVICE_COOKIE_PATH),
      maxAge: DEVICE_COOKIE_MAX_AGE_MS,
    });
  }

  /**
   * A browser's SSO login in progress (its state, nonce and PKCE verifier, sealed): sent back only to the
   * callback, and `SameSite=Lax`, since the provider's redirect back is a cross-site navigation.
   */
  setSsoState(response: Response, sealed: string): void {
    response.cookie(this.ssoStateName, sealed, {
      ...this.attributes(SSO_CALLBACK_PATH),
      sameSite: 'lax',
      // As long as the sealed state itself is valid: the time a login may take at the provider.
      maxAge: LOGIN_STATE_TTL_SECONDS * 1000,
    });
  }

  ssoState(request: Request): string | null {
    return readCookie(request, this.ssoStateName);
  }

  clearSsoState(response: Response): void {
    response.clearCookie(this.ssoStateName, { ...this.attributes(SSO_CALLBACK_PATH), sameSite: 'lax' });
  }

  clear(response: Response): void {
    response.clearCookie(this.sessionName, this.attributes('/v1'));
    response.clearCookie(this.refreshName, this.attributes('/v1/auth'));
    response.clearCookie(this.signedInHintName, { ...this.attributes(DASHBOARD_PATH), httpOnly: false });
  }

  private attributes(path: string): CookieOptions {
    return { httpOnly: true, sameSite: 'strict', secure: this.secure, path };
  }
}
