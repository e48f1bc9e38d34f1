import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Job } from 'bull';
import { ProcessConfig } from '../common/lifecycle/process.config';
import { WebhooksConfig } from './webhooks.config';
import type { WebhookDeliveryJobData } from '../queues/job-catalogue';
import { WebhookDeliveryQueue, attemptNumberOfJob } from './webhook-delivery-queue.service';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookOutboxDispatcher } from './webhook-outbox-dispatcher.service';

const DISPATCH_INTERVAL_MS = 1_000;
const RECONCILE_INTERVAL_MS = 15_000;

/**
 * The webhook side of a worker (roles `worker` and `all`): the outbox dispatcher every second, the Bull
 * processor of delivery attempts, and the reconciler that re-enqueues pending deliveries without a job.
 * Each only orchestrates; the rules live in the services.
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);
  private timers: NodeJS.Timeout[] = [];
  private dispatching = false;
  private reconciling = false;
  private stopped = false;

  constructor(
    private readonly queue: WebhookDeliveryQueue,
    private readonly deliveries: WebhookDeliveryService,
    private readonly dispatcher: WebhookOutboxDispatcher,
    private readonly config: ProcessConfig,
    private readonly webhooks: WebhooksConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.ROLE === 'api') return;
    void this.queue.queue.process(
      this.webhooks.WEBHOOK_DELIVERY_CONCURRENCY,
      (job: Job<WebhookDeliveryJobData>) => this.process(job),
    );
    await this.reconcile();
    await this.dispatch();
    this.timers = [
      setInterval(() => void this.dispatch(), DISPATCH_INTERVAL_MS),
      setInterval(() => void this.reconcile(), RECONCILE_INTERVAL_MS),
    ];
    for (const timer of this.timers) timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    if (this.config.ROLE !== 'api') await this.queue.queue.close().catch(() => undefined);
  }

  private async process(job: Job<WebhookDeliveryJobData>): Promise<void> {
    await this.deliveries.attempt(job.data.deliveryId, attemptNumberOfJob(job.id));
  }

  /** Outbox → deliveries; errors are logged and the next tick tries again. */
  async dispatch(): Promise<void> {
    if (this.dispatching || this.stopped) return;
    this.dispatching = true;
    try {
      await this.dispatcher.dispatchPending();
    } catch (error) {
      this.logger.warn(`Outbox dispatch failed; retrying next tick: ${(error as Error).message}`);
    } finally {
      this.dispatching = false;
    }
  }

  async reconcile(): Promise<void> {
    if (this.reconciling || this.stopped) return;
    this.reconciling = true;
    try {
      const requeued = await this.deliveries.reconcile();
      if (requeued > 0)
        this.logger.log(`Re-enqueued ${requeued} webhook delivery attempt(s) without a live job`);
    } catch (error) {
      this.logger.warn(`Webhook reconciliation skipped: ${(error as Error).message}`);
    } finally {
      this.reconciling = false;
    }
  }
}
