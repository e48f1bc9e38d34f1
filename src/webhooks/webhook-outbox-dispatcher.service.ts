import { Injectable } from '@nestjs/common';
import { WebhookDeliveryQueue } from './webhook-delivery-queue.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';

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
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly queue: WebhookDeliveryQueue,
  ) {}

  /** Dispatches one batch; returns the number of events dispatched. */
  async dispatchBatch(): Promise<{ events: number; deliveries: number }> {
    const { eventIds, deliveryIds } = await this.deliveries.dispatchOutboxBatch(BATCH_SIZE);
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
