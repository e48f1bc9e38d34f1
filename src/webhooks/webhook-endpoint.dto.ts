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

/** PATCH: any of the create fields plus `isActive`; at least one member (an empty body is 422). */
export class UpdateWebhookEndpointDto {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true },
    { message: 'url must be an absolute http(s) URL' },
  )
  url?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  events?: WebhookEventType[];

  @IsOptional()
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
