import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { toInt } from '../config/config-transformers';

/** GET /metrics. Property names are the environment variable names. */
export class MetricsConfig {
  /**
   * Bearer token for GET /metrics (Prometheus text). Unset: /metrics answers 404, so nothing about the
   * service's load is public by default. At least 16 characters.
   */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;

  /**
   * Worker-only processes serve GET /metrics (same token) on this port when it is set; API processes use PORT.
   * Unset: a worker exposes no metrics (queue depth is visible from any API process, it is read from Redis).
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;
}
