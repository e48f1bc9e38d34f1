import { Injectable, Logger } from '@nestjs/common';
import { LogContext } from '../common/logging/log-context';
import { REQUEST_ID_HEADER } from '../common/logging/request-id';
import { contextOf, inSpan, SpanKind, traceHeaders } from '../common/tracing/trace-context';
import { WEBHOOK_DELIVERY_QUEUE } from '../queues/job-catalogue';
import { OutboundUrlConfig } from '../outbound-url/outbound-url.config';
import { SERVICE_VERSION } from '../version';
import { WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity';
import { WebhookDeliveryQueue } from './webhook-delivery-queue.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookHttpClient } from './webhook-http-client';
import {
  AttemptResult,
  classifyAttempt,
  nextStep,
  retryDelayMs,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_TIMEOUT_MS,
} from './webhook-retry-policy';
import {
  serializeWebhookEnvelope,
  signWebhookPayload,
  WEBHOOK_HEADERS,
  webhookTimestamp,
} from './webhook-signature';
import { WebhookTargetPolicy } from './webhook-target-policy';
import { JobCallbacks } from './job-callbacks.service';

/** Pending deliveries the reconciler checks per pass, oldest first. */
const RECONCILE_BATCH = 1000;

/** What became of one attempt job; `stale` means another job already made (or owns) this attempt. */
export type DeliveryAttemptOutcome = 'delivered' | 'failed' | 'retry-scheduled' | 'stale';

/**
 * Makes one attempt of one webhook delivery and records it. PostgreSQL holds the truth (status and every
 * attempt); a Bull job only says "make attempt n now". The attempt is recorded with a compare-and-set on
 * the number of attempts made, so duplicated jobs cannot record an attempt twice or skip a wait.
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly queue: WebhookDeliveryQueue,
    private readonly targets: WebhookTargetPolicy,
    private readonly client: WebhookHttpClient,
    private readonly config: OutboundUrlConfig,
    private readonly logContext: LogContext,
    private readonly callbacks: JobCallbacks,
  ) {}

  async attempt(deliveryId: string, attemptNumber: number): Promise<DeliveryAttemptOutcome> {
    const delivery = await this.deliveries.findForAttempt(deliveryId);
    // Gone (endpoint, job or workspace deleted: cascade), finished, or this attempt is not the next one.
    if (!delivery?.event || (!delivery.endpoint && !delivery.transcription) || delivery.status !== 'pending')
      return 'stale';
    if (delivery.attempts.length + 1 !== attemptNumber || attemptNumber > WEBHOOK_MAX_ATTEMPTS)
      return 'stale';
    // In the logging context of the request that caused the event (the upload's id, sent as X-Request-Id),
    // and a span of its trace (sent as traceparent).
    const event = delivery.event;
    return inSpan(
      `process ${WEBHOOK_DELIVERY_QUEUE}`,
      {
        parent: contextOf(event.traceparent),
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.destination.name': WEBHOOK_DELIVERY_QUEUE,
          'webhook.delivery.id': deliveryId,
          'webhook.event.type': event.type,
          'webhook.endpoint.id': delivery.endpointId,
          'webhook.attempt': attemptNumber,
        },
      },
      () =>
        this.logContext.run({ requestId: event.requestId, deliveryId }, () =>
          this.makeAttempt(delivery, attemptNumber),
        ),
    );
  }

  private async makeAttempt(
    delivery: WebhookDelivery,
    attemptNumber: number,
  ): Promise<DeliveryAttemptOutcome> {
    const deliveryId = delivery.id;
    const startedAt = new Date();
    const result = await this.send(delivery);
    const record: WebhookDeliveryAttempt = {
      at: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      statusCode: result.statusCode,
      error: result.statusCode === null ? result.error : null,
    };
    const step = nextStep(classifyAttempt(result), attemptNumber);
    const recorded = await this.deliveries.recordAttempt(deliveryId, attemptNumber, record, step.status);
    if (!recorded) return 'stale';
    // The target is named by id, never by URL or header (a callback's header value is a secret).
    const target = delivery.endpointId
      ? `endpoint ${delivery.endpointId}`
      : `the callback of transcription ${delivery.transcriptionId}`;
    this.logger.log(
      `Webhook delivery ${deliveryId} (${delivery.event!.type}) attempt ${attemptNumber} to ${target}: ` +
        `${record.error ?? `HTTP ${record.statusCode}`} → ${step.status}`,
    );
    if (step.status === 'pending') {
      await this.queue.enqueueOrDefer(deliveryId, attemptNumber + 1, step.delayMs);
      return 'retry-scheduled';
    }
    if (step.status === 'failed') {
      this.logger.warn(
        `Webhook delivery ${deliveryId} to ${target} failed after attempt ${attemptNumber}: ` +
          (record.error ?? `HTTP ${record.statusCode}`),
      );
    }
    return step.status;
  }

  /**
   * Pending deliveries without a live job get their next attempt enqueued again, delayed to when it is
   * due (a Redis flush or a killed worker loses nothing but time).
   */
  async reconcile(now = Date.now()): Promise<number> {
    const pending = await this.deliveries.pending(RECONCILE_BATCH);
    let requeued = 0;
    for (const delivery of pending) {
      const next = delivery.attempts.length + 1;
      if (next > WEBHOOK_MAX_ATTEMPTS) {
        await this.deliveries.failPending(delivery.id);
        continue;
      }
      if (await this.queue.isLive(delivery.id, next)) continue;
      await this.queue.enqueue(delivery.id, next, dueIn(delivery.attempts, now));
      requeued++;
    }
    return requeued;
  }

  private async send(delivery: WebhookDelivery): Promise<AttemptResult> {
    if (!delivery.endpoint) return this.sendCallback(delivery);
    const endpoint = delivery.endpoint;
    const event = delivery.event!;
    if (!endpoint.isActive) {
      return { statusCode: null, error: 'refused: the endpoint is no longer active', refused: true };
    }
    // The URL rules and an IP literal host are checked here (a refusal is permanent); a host name is
    // resolved and checked by the client's connection, inside the attempt's deadline, where a DNS failure
    // or timeout is a transient error like any other.
    const verdict = this.targets.checkUrl(endpoint.url);
    if (!verdict.allowed) return { statusCode: null, error: `refused: url ${verdict.reason}`, refused: true };
    const timestamp = webhookTimestamp();
    const rawBody = serializeWebhookEnvelope(event.type, timestamp, event.data);
    const previousSecretValid =
      endpoint.previousSecret !== null &&
      endpoint.previousSecretExpiresOn !== null &&
      endpoint.previousSecretExpiresOn.getTime() > Date.now();
    return this.client.post({
      url: endpoint.url,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': `transcription-service-webhooks/${SERVICE_VERSION}`,
        [WEBHOOK_HEADERS.timestamp]: timestamp,
        [WEBHOOK_HEADERS.signature]: signWebhookPayload(endpoint.secret, timestamp, rawBody),
        [WEBHOOK_HEADERS.deliveryId]: delivery.id,
        ...(event.requestId !== null ? { [REQUEST_ID_HEADER]: event.requestId } : {}),
        // The delivery's span (the job's trace) when the service traces; nothing otherwise.
        ...traceHeaders(),
        ...(previousSecretValid
          ? {
              [WEBHOOK_HEADERS.previousSignature]: signWebhookPayload(
                endpoint.previousSecret!,
                timestamp,
                rawBody,
              ),
            }
          : {}),
      },
      body: Buffer.from(rawBody, 'utf8'),
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      allowPrivateTargets: this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
  }

  /**
   * A per-job callback: the body of the API that asked for it (JobCallbacks), to its URL under the same target
   * rules and client as an endpoint's, with the caller's own header. Unsigned: the job has no endpoint secret
   * (the vendors' callbacks are not signed either).
   */
  private async sendCallback(delivery: WebhookDelivery): Promise<AttemptResult> {
    const job = delivery.transcription!;
    const event = delivery.event!;
    const callback = job.callback;
    if (!callback || (event.type !== 'transcription.completed' && event.type !== 'transcription.failed')) {
      return { statusCode: null, error: 'refused: the job has no callback', refused: true };
    }
    const verdict = this.targets.checkUrl(callback.url);
    if (!verdict.allowed) return { statusCode: null, error: `refused: url ${verdict.reason}`, refused: true };
    const body = await this.callbacks.render(job, event.type);
    if (!body) return { statusCode: null, error: 'refused: nothing to send for the job', refused: true };
    const header = this.callbacks.authHeaderOf(callback);
    return this.client.post({
      url: callback.url,
      method: callback.method,
      headers: {
        ...(header ? { [header.name]: header.value } : {}),
        'Content-Type': 'application/json',
        'User-Agent': `transcription-service-webhooks/${SERVICE_VERSION}`,
        [WEBHOOK_HEADERS.deliveryId]: delivery.id,
        ...(event.requestId !== null ? { [REQUEST_ID_HEADER]: event.requestId } : {}),
      },
      body: Buffer.from(JSON.stringify(body), 'utf8'),
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      allowPrivateTargets: this.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
  }
}

/** Milliseconds until the next attempt is due: at once for the first, else the wait after the last one. */
export function dueIn(attempts: WebhookDeliveryAttempt[], now: number): number {
  const last = attempts[attempts.length - 1];
  if (!last) return 0;
  const lastEnded = Date.parse(last.at) + last.durationMs;
  return Math.max(0, lastEnded + retryDelayMs(attempts.length) - now);
}
