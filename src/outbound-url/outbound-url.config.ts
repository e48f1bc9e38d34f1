import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { toBool } from '../config/config-transformers';

/**
 * Which addresses outgoing calls may reach (OutboundUrlPolicy: webhook deliveries and `audio_url` intake).
 * Property names are the environment variable names.
 */
export class OutboundUrlConfig {
  /** Lets webhooks reach loopback/private addresses and use http:// (tests, local development only). */
  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_TARGETS = false;
}
