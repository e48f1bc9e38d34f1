import { Transform } from 'class-transformer';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { toInt } from '../config/config-transformers';
import type { CrossSliceCheck } from '../config/configuration';
import { ProcessConfig } from '../common/lifecycle/process.config';

/** The JWT_SECRET of .env.example: anyone can forge session tokens with it, so only development/test accept it. */
export const JWT_SECRET_PLACEHOLDER = 'change-me-to-a-long-random-secret-of-32-chars-or-more';

/** Session token signing and API keys. Property names are the environment variable names. */
export class AuthConfig {
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 characters' })
  JWT_SECRET: string;

  /** Longest session JWT accepted, `exp` − `iat` in seconds; a longer-lived (or `iat`-less) token is 401. */
  @Transform(toInt)
  @IsInt()
  @Min(60)
  JWT_MAX_LIFETIME_SECONDS = 86_400;

  /** Live (not revoked, not expired) API keys a workspace may hold; one more is 422 `api-key-limit`. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  API_KEYS_MAX_PER_WORKSPACE = 50;

  /**
   * Days the request log of API keys (`GET /v1/api-keys/{id}/requests`) keeps a request; the retention purge
   * deletes older entries.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  API_KEY_REQUEST_LOG_DAYS = 30;

  /**
   * NODE_ENV belongs to the process (ProcessConfig); the placeholder secret is refused outside development
   * and test.
   */
  static readonly crossSliceChecks: CrossSliceCheck<AuthConfig>[] = [
    {
      variable: 'JWT_SECRET',
      problem: (auth, configuration) => {
        const environment = configuration.get(ProcessConfig).NODE_ENV;
        return auth.JWT_SECRET !== JWT_SECRET_PLACEHOLDER ||
          environment === 'development' ||
          environment === 'test'
          ? undefined
          : 'JWT_SECRET is the .env.example placeholder; set a random secret (only NODE_ENV=development or test may use it)';
      },
    },
  ];
}
