import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookDeliveryQueue } from './webhook-delivery-queue.service';

const BATCH_SIZE = 100;

/**
 * Turns undispatched outbox events into deliveries: one row per active endpoint of the event's workspace
 * subscribed to its type, then the event is marked dispatched, all in one transaction. Rows are claimed
 * with SKIP LOCKED so several workers can dispatch side by side; the (event, endpoint) unique index makes a
 * repeated dispatch harmless. The first attempts are enqueued after the commit; one lost on the way (Redis
 * down, crash) is picked up by the delivery reconciler.
 */
@Injectable()
export class WebhookOutboxDispatcher {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: WebhookDeliveryQueue,
  ) {}

  /** Dispatches one batch; returns the number of events dispatched. */
  async dispatchBatch(): Promise<{ events: number; deliveries: number }> {
    const { eventIds, deliveryIds } = await this.dataSource.transaction(async (tx) => {
      const events: Array<{ id: string }> = await tx.query(
        `SELECT id FROM outbox_events
          WHERE dispatched_on IS NULL
          ORDER BY created_on, id
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [BATCH_SIZE],
      );
      const ids = events.map((event) => event.id);
      if (ids.length === 0) return { eventIds: ids, deliveryIds: [] as string[] };
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
        [ids],
      );
      await tx.query(`UPDATE outbox_events SET dispatched_on = now() WHERE id = ANY ($1::uuid[])`, [ids]);
      return { eventIds: ids, deliveryIds: created.map((row) => row.id) };
    });
    for (const deliveryId of deliveryIds) await this.queue.enqueueOrDefer(deliveryId, 1);
    return { events: eventIds.length, deliveries: deliveryIds.length };
  }

  /** Dispatches until nothing is left (bounded by the batch count so one tick cannot run forever). */
  async dispatchPending(maxBatches = 20): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const { events } = await this.dispatchBatch();
      total += events;
      if (events < BATCH_SIZE) break;
    }
    return total;
  }
}
