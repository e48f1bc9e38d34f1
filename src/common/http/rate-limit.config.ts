import { Transform } from 'class-transformer';
import { IsInt, Min } from 'class-validator';
import { toInt } from '../../config/config-transformers';

/** Requests per minute (RateLimitService). Property names are the environment variable names. */
export class RateLimitConfig {
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE = 100;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE = 30;

  /**
   * All authenticated calls of one workspace together (every API key and signed-in user), on top of each
   * key's or user's own RATE_LIMIT_AUTHENTICATED_PER_MINUTE: more keys never buy more rate than this.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_WORKSPACE_PER_MINUTE = 300;
}
