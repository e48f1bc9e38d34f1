import { Module } from '@nestjs/common';
import { WebhookEventsOutbox } from './webhook-events-outbox.service';

/**
 * What the modules that emit webhook events (billing, transcriptions) import: the typed outbox writer
 * only. It depends on nothing but the database connection, so it cannot create a module cycle.
 */
@Module({
  providers: [WebhookEventsOutbox],
  exports: [WebhookEventsOutbox],
})
export class WebhookEventsModule {}
