import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsString, IsUrl, MaxLength } from 'class-validator';
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
