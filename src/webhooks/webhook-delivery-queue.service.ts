import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { WEBHOOK_DELIVERY_QUEUE, WebhookDeliveryJobData } from '../queues/job-catalogue';

/**
 * Bull job id of one attempt: the delivery id for the first, `<id>:attempt-<n>` for the retries. A retry
 * is added while the attempt before it is still the active job, so it needs an id of its own; being
 * deterministic per attempt, a second add (processor and reconciler racing) is a no-op.
 */
export function deliveryJobId(deliveryId: string, attemptNumber: number): string {
  return attemptNumber <= 1 ? deliveryId : `${deliveryId}:attempt-${attemptNumber}`;
}

/** The only place that adds webhook delivery jobs, and the one place their options are set. */
@Injectable()
export class WebhookDeliveryQueue {
  private readonly logger = new Logger(WebhookDeliveryQueue.name);

  constructor(@InjectQueue(WEBHOOK_DELIVERY_QUEUE) readonly queue: Queue<WebhookDeliveryJobData>) {}

  /** Retries are ours (timed from PostgreSQL), so a Bull job is one attempt: attempts 1, no backoff. */
  async enqueue(deliveryId: string, attemptNumber: number, delayMs = 0): Promise<void> {
    await this.queue.add(
      { deliveryId },
      {
        jobId: deliveryJobId(deliveryId, attemptNumber),
        delay: Math.max(0, Math.round(delayMs)),
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  /** Enqueue without failing the caller: PostgreSQL holds the delivery and the reconciler retries. */
  async enqueueOrDefer(deliveryId: string, attemptNumber: number, delayMs = 0): Promise<void> {
    try {
      await this.enqueue(deliveryId, attemptNumber, delayMs);
    } catch (error) {
      this.logger.warn(
        `Enqueue of delivery ${deliveryId} deferred to the reconciler: ${(error as Error).message}`,
      );
    }
  }

  async isLive(deliveryId: string, attemptNumber: number): Promise<boolean> {
    const job = await this.queue.getJob(deliveryJobId(deliveryId, attemptNumber));
    if (!job) return false;
    const state = await job.getState();
    return state !== 'completed' && state !== 'failed';
  }
}

/** The attempt number a job id stands for (the inverse of deliveryJobId). */
export function attemptNumberOfJob(jobId: string | number): number {
  const match = /:attempt-(\d+)$/.exec(String(jobId));
  return match ? Number(match[1]) : 1;
}
