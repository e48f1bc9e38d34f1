import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { OutboxEvent } from './outbox-event.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryQueue } from './webhook-delivery-queue.service';
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
    @InjectDataSource() private readonly dataSource: DataSource,
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
    const builder = this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('delivery')
      .innerJoinAndSelect('delivery.event', 'event')
      .where('delivery.endpointId = :endpointId', { endpointId })
      .orderBy('delivery.createdOn', 'DESC')
      .addOrderBy('delivery.id', 'DESC')
      // The join is many-to-one (one event per delivery), so a plain LIMIT counts deliveries.
      .limit(limit + 1);
    if (cursor !== undefined) {
      const anchor = await this.dataSource
        .getRepository(WebhookDelivery)
        .findOne({ where: { id: cursor.toLowerCase(), endpointId }, select: { id: true, createdOn: true } });
      if (!anchor) throw ProblemException.field('cursor', 'cursor does not name a delivery of this endpoint');
      builder.andWhere('(delivery.createdOn, delivery.id) < (:anchorCreated, :anchorId)', {
        anchorCreated: anchor.createdOn,
        anchorId: anchor.id,
      });
    }
    const rows = await builder.getMany();
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
    const repository = this.dataSource.getRepository(WebhookDelivery);
    const original = await repository.findOne({
      where: { id: deliveryId, endpointId },
      relations: { event: true },
    });
    if (!original?.event) throw ProblemException.notFound('The webhook delivery');
    const created = await repository.save(
      repository.create({
        eventId: original.eventId,
        endpointId,
        redeliveryOf: original.id,
        status: 'pending',
        attempts: [],
      }),
    );
    await this.queue.enqueueOrDefer(created.id, 1);
    return toWebhookDeliveryView(created, original.event.type);
  }

  /**
   * A `webhook.test` event for this endpoint only: written already dispatched (the fan-out never sees it)
   * with its one delivery in the same transaction, then its first attempt queued.
   */
  async sendTest(workspaceId: string, endpointId: string, now = new Date()): Promise<WebhookDeliveryView> {
    const endpoint = await this.endpoints.get(workspaceId, endpointId);
    const delivery = await this.dataSource.transaction(async (tx) => {
      const event = await tx.save(
        tx.create(OutboxEvent, {
          workspaceId,
          // Not a subscribable event: the outbox column takes any name, the catalogue lists the subscribable.
          type: WEBHOOK_TEST_EVENT as OutboxEvent['type'],
          dedupeKey: `${WEBHOOK_TEST_EVENT}:${randomUUID()}`,
          data: {
            webhookId: endpoint.id,
            sentAt: now.toISOString(),
          } satisfies WebhookEnvelopes['webhook.test']['data'],
          dispatchedOn: now,
        }),
      );
      return tx.save(
        tx.create(WebhookDelivery, { eventId: event.id, endpointId, status: 'pending', attempts: [] }),
      );
    });
    await this.queue.enqueueOrDefer(delivery.id, 1);
    return toWebhookDeliveryView(delivery, WEBHOOK_TEST_EVENT);
  }
}
