import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { OutboxEvent } from './outbox-event.entity';
import {
  WebhookDelivery,
  type WebhookDeliveryAttempt,
  type WebhookDeliveryStatus,
} from './webhook-delivery.entity';

/** Where a page of an endpoint's deliveries starts: after this delivery (newest first). */
export type DeliveryPageAnchor = Pick<WebhookDelivery, 'id' | 'createdOn'>;

const D = 'delivery';
const PENDING: WebhookDeliveryStatus = 'pending';

/**
 * Webhook deliveries and the dispatch of the outbox into them (the outbox itself is written only by
 * WebhookEventsOutbox). One style, as for transcriptions: TypeORM's query builder, `save` to insert a new
 * entity. The one hand-written statement is the outbox fan-out's INSERT … SELECT: the builder has no form
 * for it, and one statement keeps the fan-out a single round trip under the claimed events' locks.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A delivery with the event it carries and the endpoint it goes to, or the job whose callback it goes to
   * (each may be gone: cascade).
   */
  findForAttempt(id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.manager
      .createQueryBuilder(WebhookDelivery, D)
      .leftJoinAndSelect(`${D}.event`, 'event')
      .leftJoinAndSelect(`${D}.endpoint`, 'endpoint')
      .leftJoinAndSelect(`${D}.transcription`, 'transcription')
      .where(`${D}.id = :id`, { id })
      .getOne();
  }

  /**
   * Appends attempt `attemptNumber` and the status it leads to, only if the delivery is pending and exactly
   * the attempts before it are recorded (compare-and-set); false when another job got there first.
   */
  async recordAttempt(
    id: string,
    attemptNumber: number,
    attempt: WebhookDeliveryAttempt,
    status: WebhookDeliveryStatus,
  ): Promise<boolean> {
    const updated = await this.dataSource.manager
      .createQueryBuilder()
      .update(WebhookDelivery)
      .set({
        attempts: () => `attempts || CAST(:attempt AS jsonb)`,
        status,
        completedOn: status === PENDING ? null : () => 'now()',
      })
      .where('id = :id AND status = :pending AND jsonb_array_length(attempts) = :made', {
        id,
        pending: PENDING,
        made: attemptNumber - 1,
      })
      .setParameter('attempt', JSON.stringify([attempt]))
      .execute();
    return (updated.affected ?? 0) > 0;
  }

  /** Pending deliveries, oldest first: what the reconciler checks for a live job. */
  pending(limit: number): Promise<Array<Pick<WebhookDelivery, 'id' | 'attempts' | 'createdOn'>>> {
    return this.dataSource.manager
      .createQueryBuilder(WebhookDelivery, D)
      .select([`${D}.id`, `${D}.attempts`, `${D}.createdOn`])
      .where(`${D}.status = :pending`, { pending: PENDING })
      .orderBy(`${D}.createdOn`, 'ASC')
      .take(limit)
      .getMany();
  }

  /** A pending delivery that has used all its attempts ends failed. */
  async failPending(id: string): Promise<void> {
    await this.dataSource.manager
      .createQueryBuilder()
      .update(WebhookDelivery)
      .set({ status: 'failed', completedOn: new Date() })
      .where('id = :id AND status = :pending', { id, pending: PENDING })
      .execute();
  }

  /** The place in the endpoint's log of the delivery a cursor names; null when not one of this endpoint's. */
  findAnchor(endpointId: string, id: string): Promise<DeliveryPageAnchor | null> {
    return this.dataSource.manager
      .createQueryBuilder(WebhookDelivery, D)
      .select([`${D}.id`, `${D}.createdOn`])
      .where(`${D}.id = :id AND ${D}.endpointId = :endpointId`, { id, endpointId })
      .getOne();
  }

  /** Up to `take` of the endpoint's deliveries with their events, newest first, after `anchor`. */
  page(endpointId: string, take: number, anchor: DeliveryPageAnchor | null): Promise<WebhookDelivery[]> {
    const builder = this.dataSource.manager
      .createQueryBuilder(WebhookDelivery, D)
      .innerJoinAndSelect(`${D}.event`, 'event')
      .where(`${D}.endpointId = :endpointId`, { endpointId })
      .orderBy(`${D}.createdOn`, 'DESC')
      .addOrderBy(`${D}.id`, 'DESC')
      // The join is many-to-one (one event per delivery), so a plain LIMIT counts deliveries.
      .limit(take);
    if (anchor) {
      builder.andWhere(`(${D}.createdOn, ${D}.id) < (:anchorCreated, :anchorId)`, {
        anchorCreated: anchor.createdOn,
        anchorId: anchor.id,
      });
    }
    return builder.getMany();
  }

  /** One of the endpoint's deliveries with its event. */
  findOfEndpoint(endpointId: string, id: string): Promise<WebhookDelivery | null> {
    return this.dataSource.manager
      .createQueryBuilder(WebhookDelivery, D)
      .leftJoinAndSelect(`${D}.event`, 'event')
      .where(`${D}.id = :id AND ${D}.endpointId = :endpointId`, { id, endpointId })
      .getOne();
  }

  /** A new pending delivery of the same event to the same endpoint, no attempt made. */
  insertRedelivery(
    original: Pick<WebhookDelivery, 'id' | 'eventId' | 'endpointId'>,
  ): Promise<WebhookDelivery> {
    const repository = this.dataSource.getRepository(WebhookDelivery);
    return repository.save(
      repository.create({
        eventId: original.eventId,
        endpointId: original.endpointId,
        redeliveryOf: original.id,
        status: PENDING,
        attempts: [],
      }),
    );
  }

  /**
   * An event written already dispatched (the fan-out never sees it) with its one pending delivery to
   * `endpointId`, in one transaction.
   */
  insertDispatchedEvent(
    event: Pick<OutboxEvent, 'workspaceId' | 'type' | 'dedupeKey' | 'data' | 'dispatchedOn'>,
    endpointId: string,
  ): Promise<WebhookDelivery> {
    return this.dataSource.transaction(async (tx) => {
      const saved = await tx.save(tx.create(OutboxEvent, event));
      return tx.save(
        tx.create(WebhookDelivery, { eventId: saved.id, endpointId, status: PENDING, attempts: [] }),
      );
    });
  }

  /**
   * Claims up to `batchSize` undispatched outbox events (oldest first, skipping those another worker holds),
   * creates one delivery per active endpoint of the event's workspace subscribed to its type, and one to the
   * callback of the job a transcription's end is about when its request asked for one, and marks the
   * events dispatched, in one transaction. A repeated fan-out creates nothing (the (event, endpoint) unique
   * index of first deliveries).
   */
  dispatchOutboxBatch(batchSize: number): Promise<{ eventIds: string[]; deliveryIds: string[] }> {
    return this.dataSource.transaction(async (tx) => {
      const events = await tx
        .createQueryBuilder(OutboxEvent, 'event')
        .select('event.id')
        .where('event.dispatchedOn IS NULL')
        .orderBy('event.createdOn')
        .addOrderBy('event.id')
        .limit(batchSize)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      const eventIds = events.map((event) => event.id);
      if (eventIds.length === 0) return { eventIds, deliveryIds: [] };
      const deliveryIds = [...(await this.fanOut(tx, eventIds)), ...(await this.toCallbacks(tx, eventIds))];
      await tx
        .createQueryBuilder()
        .update(OutboxEvent)
        .set({ dispatchedOn: () => 'now()' })
        .where('id IN (:...eventIds)', { eventIds })
        .execute();
      return { eventIds, deliveryIds };
    });
  }

  private async fanOut(tx: EntityManager, eventIds: string[]): Promise<string[]> {
    const created: Array<{ id: string }> = await tx.query(
      `INSERT INTO webhook_deliveries (event_id, endpoint_id)
       SELECT event.id, endpoint.id
         FROM outbox_events event
         JOIN webhook_endpoints endpoint
           ON endpoint.workspace_id = event.workspace_id
          AND endpoint.is_active
          AND event.type = ANY (endpoint.events)
        WHERE event.id = ANY ($1::uuid[])
        ORDER BY event.created_on, event.id, endpoint.created_on
       ON CONFLICT (event_id, endpoint_id) WHERE redelivery_of IS NULL DO NOTHING
       RETURNING id`,
      [eventIds],
    );
    return created.map((row) => row.id);
  }

  /**
   * The per-job callbacks: one delivery per job end (the end's outbox event is once per job, and the unique
   * index of first callback deliveries makes a repeated fan-out create nothing). A job deleted before its end
   * was dispatched has no row to join: nothing is sent.
   */
  private async toCallbacks(tx: EntityManager, eventIds: string[]): Promise<string[]> {
    const created: Array<{ id: string }> = await tx.query(
      `INSERT INTO webhook_deliveries (event_id, transcription_id)
       SELECT event.id, job.id
         FROM outbox_events event
         JOIN transcriptions job
           ON job.id = CASE
                WHEN event.type IN ('transcription.completed', 'transcription.failed')
                THEN (event.data->>'id')::uuid
              END
          AND job.workspace_id = event.workspace_id
          AND job.callback IS NOT NULL
        WHERE event.id = ANY ($1::uuid[])
        ORDER BY event.created_on, event.id
       ON CONFLICT (event_id) WHERE transcription_id IS NOT NULL AND redelivery_of IS NULL DO NOTHING
       RETURNING id`,
      [eventIds],
    );
    return created.map((row) => row.id);
  }
}
