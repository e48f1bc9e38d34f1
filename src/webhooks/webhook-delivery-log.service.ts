import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ProblemException } from '../common/problem/problem.exception';
import type { OutboxEvent } from './outbox-event.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryQueue } from './webhook-delivery-queue.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WEBHOOK_TEST_EVENT } from './webhook-signature';
import type { WebhookEnvelopes } from './events/webhook-event-catalogue';
import type { Schema, SerializesTo } from '../openapi/contract-types';

/** A delivery as the API lists it: what was sent and every attempt made. */
export type WebhookDeliveryView = SerializesTo<Schema<'WebhookDelivery'>>;

/** The shape of the transcription list: `cursor` is the last item's id, null with `hasMore` false at the end. */
export type WebhookDeliveryPage = SerializesTo<Schema<'WebhookDeliveryPage'>>;

export function toWebhookDeliveryView(delivery: WebhookDelivery, eventType: string): WebhookDeliveryView {
  return {
    id: delivery.id,
    event: eventType,
    eventId: delivery.eventId,
    status: delivery.status,
    attempts: delivery.attempts,
    redeliveryOf: delivery.redeliveryOf,
    createdOn: delivery.createdOn,
    completedOn: delivery.completedOn,
  };
}

/**
 * The deliveries of one endpoint as the workspace sees them: the log, a redelivery of one of them, and
 * the test ping. Every lookup goes through the endpoint of the workspace, so another workspace's endpoint
 * or delivery is 404.
 */
@Injectable()
export class WebhookDeliveryLogService {
  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly endpoints: WebhookEndpointsService,
    private readonly queue: WebhookDeliveryQueue,
  ) {}

  /** Newest first (the endpoint: one of the workspace, from WebhookEndpointsService.get); the cursor is the id of the previous page's last delivery (422 if not of this endpoint). */
  async list(
    endpoint: WebhookEndpoint,
    limit: number,
    cursor: string | undefined,
  ): Promise<WebhookDeliveryPage> {
    const endpointId = endpoint.id;
    let anchor = null;
    if (cursor !== undefined) {
      anchor = await this.deliveries.findAnchor(endpointId, cursor.toLowerCase());
      if (!anchor) throw ProblemException.field('cursor', 'cursor does not name a delivery of this endpoint');
    }
    const rows = await this.deliveries.page(endpointId, limit + 1, anchor);
    const page = rows.slice(0, limit);
    return {
      data: page.map((delivery) => toWebhookDeliveryView(delivery, delivery.event!.type)),
      cursor: rows.length > limit ? page[page.length - 1].id : null,
      hasMore: rows.length > limit,
    };
  }

  /** A new delivery of the same event (same envelope; signed anew at each attempt), first attempt queued. */
  async redeliver(workspaceId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
    await this.endpoints.get(workspaceId, endpointId);
    const original = await this.deliveries.findOfEndpoint(endpointId, deliveryId);
    if (!original?.event) throw ProblemException.notFound('The webhook delivery');
    const created = await this.deliveries.insertRedelivery(original);
    await this.queue.enqueueOrDefer(created.id, 1);
    return toWebhookDeliveryView(created, original.event.type);
  }

  /**
   * A `webhook.test` event for this endpoint only: written already dispatched (the fan-out never sees it)
   * with its one delivery in the same transaction, then its first attempt queued.
   */
  async sendTest(workspaceId: string, endpointId: string, now = new Date()): Promise<WebhookDeliveryView> {
    const endpoint = await this.endpoints.get(workspaceId, endpointId);
    const delivery = await this.deliveries.insertDispatchedEvent(
      {
        workspaceId,
        // Not a subscribable event: the outbox column takes any name, the catalogue lists the subscribable.
        type: WEBHOOK_TEST_EVENT as OutboxEvent['type'],
        dedupeKey: `${WEBHOOK_TEST_EVENT}:${randomUUID()}`,
        data: {
          webhookId: endpoint.id,
          sentAt: now.toISOString(),
        } satisfies WebhookEnvelopes['webhook.test']['data'],
        dispatchedOn: now,
      },
      endpointId,
    );
    await this.queue.enqueueOrDefer(delivery.id, 1);
    return toWebhookDeliveryView(delivery, WEBHOOK_TEST_EVENT);
  }
}
