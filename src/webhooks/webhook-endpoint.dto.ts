import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IfPresent } from '../common/validation/if-present';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from './events/webhook-event-catalogue';

export class CreateWebhookEndpointDto {
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
    { message: 'url must be an absolute http(s) URL' },
  )
  url: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  events: WebhookEventType[];
}

/**
 * PATCH: any of the create fields plus `isActive`; at least one member (an empty body is 422). A member sent
 * as null is validated and refused (422 naming it), not written to its NOT NULL column (was a 500).
 */
export class UpdateWebhookEndpointDto {
  @IfPresent()
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
    { message: 'url must be an absolute http(s) URL' },
  )
  url?: string;

  @IfPresent()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  events?: WebhookEventType[];

  @IfPresent()
  @IsBoolean()
  isActive?: boolean;
}

export class ListWebhookDeliveriesQueryDto {
  @IsOptional()
  @IsUUID('all', { message: 'cursor must be a delivery id from a previous page' })
  cursor?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;
}
