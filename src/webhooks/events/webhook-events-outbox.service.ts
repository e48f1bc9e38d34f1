import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { currentRequestId } from '../../common/logging/request-id';
import { currentTraceparent } from '../../common/tracing/trace-context';
import { OutboxEvent } from '../outbox-event.entity';
import { dedupeKeyOf, type WebhookEventOccurrence } from './webhook-event-catalogue';

/**
 * The only writer of the webhook outbox. Callers pass the EntityManager of the transaction that makes the
 * change, so the event commits (or rolls back) with it; an occurrence already recorded (same dedupe key)
 * is ignored, which keeps a repeated completion or posting from emitting twice. The event keeps the request id
 * of the work recording it (the upload's, inside its job), for its deliveries.
 */
@Injectable()
export class WebhookEventsOutbox {
  async record(manager: EntityManager, occurrence: WebhookEventOccurrence): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(OutboxEvent)
      .values({
        workspaceId: occurrence.workspaceId,
        type: occurrence.type,
        dedupeKey: dedupeKeyOf(occurrence),
        data: occurrence.data,
        requestId: currentRequestId(),
        traceparent: currentTraceparent(),
      })
      .orIgnore()
      .execute();
  }
}
