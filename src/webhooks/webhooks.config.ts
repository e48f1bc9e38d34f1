import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../config/config-transformers';

/** Webhook delivery. Property names are the environment variable names. */
export class WebhooksConfig {
  /** Webhook deliveries one worker process runs at once (each may wait up to the 10 s deadline). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  WEBHOOK_DELIVERY_CONCURRENCY = 10;
}
