import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { toBool, toInt, toStrictBool } from '../../config/config-transformers';

/**
 * Dashboard sessions: token lifetimes, cookies, sign-up and the sign-in throttle. Property names are the
 * environment variable names.
 */
export class DashboardSessionConfig {
  /** Lifetime of the access JWT a sign-in or refresh issues (also the `stt_session` cookie's Max-Age). */
  @Transform(toInt)
  @IsInt()
  @Min(60)
  ACCESS_TOKEN_TTL_SECONDS = 900;

  /** Lifetime of a refresh token (the `stt_refresh` cookie); every refresh rotates it. */
  @Transform(toInt)
  @IsInt()
  @Min(300)
  REFRESH_TOKEN_TTL_SECONDS = 2_592_000;

  /**
   * A refresh token rotated less than this many seconds ago may be presented again without ending the session:
   * tabs that load at once (a browser restoring its tabs) all refresh with the same cookie. Later, a rotated
   * token is a replay and revokes its family. 0: every second use is a replay.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60)
  REFRESH_REUSE_GRACE_SECONDS = 10;

  /**
   * Marks the session cookies `Secure` (sent over HTTPS only) and names them with the `__Secure-` prefix.
   * Unset: true, except under NODE_ENV=development or test. `false` is an explicit opt-out for plain-HTTP
   * use, which the boot log warns about outside development and test (src/auth/session/session-cookies.ts).
   */
  @IsOptional()
  @Transform(({ value }) => (value === '' ? undefined : toStrictBool({ value })))
  @IsBoolean({ message: 'COOKIE_SECURE must be true or false (or unset)' })
  COOKIE_SECURE?: boolean;

  /** `POST /v1/auth/signup` creates a workspace for anyone; off (404), the operator's CLI creates them. */
  @Transform(toBool)
  @IsBoolean()
  ALLOW_SIGNUP = false;

  /**
   * Failed sign-ins one client (a device that signed in before, else an IP address) may make for one account
   * before each further attempt waits (429 with Retry-After). docs/decisions.md, "Sign-in throttle".
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_CLIENT = 5;

  /** The first wait after LOGIN_MAX_FAILURES_PER_CLIENT failures; it doubles with each further failure. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_BACKOFF_BASE_SECONDS = 30;

  /** The longest wait between two attempts of one client for one account. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_BACKOFF_MAX_SECONDS = 900;

  /**
   * Failed sign-ins per account within LOGIN_FAILURE_WINDOW_SECONDS from clients that have never signed in to
   * it, before such clients get 429 (distributed guessing); devices that signed in before are exempt.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_ACCOUNT = 100;

  /** Failed sign-ins per client IP (any account, devices that signed in before exempt) within the window. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_IP = 100;

  /** The window of the two ceilings above, and how long a client's failures are remembered after its wait. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_FAILURE_WINDOW_SECONDS = 900;

  /** Sign-up attempts per client IP within SIGNUP_WINDOW_SECONDS before 429. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SIGNUP_MAX_PER_IP = 10;

  /** Sign-up attempts per email address (from anywhere) within SIGNUP_WINDOW_SECONDS before 429. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SIGNUP_MAX_PER_EMAIL = 3;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  SIGNUP_WINDOW_SECONDS = 3600;
}
