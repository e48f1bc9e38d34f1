import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthConfig } from '../auth/auth.config';
import { SecretBox } from '../auth/sso/secret-box';
import { ProblemException } from '../common/problem/problem.exception';
import type { WebhookEventType } from './events/webhook-event-catalogue';
import type { CallbackJob, JobCallback } from './job-callback';
import {
  checkCallbackHeaderName,
  checkCallbackHeaderValue,
  MAX_CALLBACK_URL_LENGTH,
} from './job-callback-rules';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookTargetPolicy } from './webhook-target-policy';

/** How a job ended, as its callback is told: the outbox event that ended it. */
export type JobEnd = Extract<WebhookEventType, 'transcription.completed' | 'transcription.failed'>;

/**
 * The body of one callback delivery, in the shape of the API that asked for it; null when the job is gone. The
 * renderer reads the job itself (its module knows the job; this one only its callback).
 */
export type JobCallbackBodyRenderer = (
  job: CallbackJob,
  end: JobEnd,
) => Promise<Record<string, unknown> | null>;

/** A callback as a compatible route reads it, before it is checked and its secret sealed. */
export interface JobCallbackRequest {
  api: JobCallback['api'];
  url: string;
  method: JobCallback['method'];
  authHeader: { name: string; value: string } | null;
  answer?: Record<string, unknown>;
  /** The request's own names of the fields, for the refusals (`callback`, `webhook_url`, …). */
  fieldNames: { url: string; authHeaderName?: string; authHeaderValue?: string };
}

/**
 * Per-job callbacks (Deepgram's `callback`, AssemblyAI's `webhook_url`) on the webhook machinery: the URL passes
 * the same WebhookTargetPolicy as a registered endpoint's (checked with DNS when asked for, again at each
 * attempt and on connecting), the header value is sealed at rest, and the body is rendered by the compatible
 * API that asked (each registers its renderer: this module depends on none of them).
 */
@Injectable()
export class JobCallbacks {
  private readonly headerValues: SecretBox;
  private readonly renderers = new Map<JobCallback['api'], JobCallbackBodyRenderer>();

  constructor(
    private readonly targets: WebhookTargetPolicy,
    @InjectDataSource() private readonly dataSource: DataSource,
    auth: AuthConfig,
  ) {
    this.headerValues = new SecretBox(auth.JWT_SECRET, 'job callback header');
  }

  /** Checks a callback as asked; throws a 400 naming the field. The result is what the job stores. */
  async prepare(request: JobCallbackRequest): Promise<JobCallback> {
    const { fieldNames } = request;
    const refuse = (field: string, reason: string): never => {
      throw ProblemException.field(field, `${field} ${reason}`);
    };
    if (request.url.length > MAX_CALLBACK_URL_LENGTH)
      refuse(fieldNames.url, `must be at most ${MAX_CALLBACK_URL_LENGTH} characters`);
    const verdict = await this.targets.check(request.url);
    if (!verdict.allowed) refuse(fieldNames.url, verdict.reason);
    let authHeaderName: string | null = null;
    let authHeaderValueSealed: string | null = null;
    if (request.authHeader) {
      const name = checkCallbackHeaderName(request.authHeader.name);
      if (!name.ok) refuse(fieldNames.authHeaderName ?? 'header name', name.reason);
      const value = checkCallbackHeaderValue(request.authHeader.value);
      // The value is never echoed, not even in a refusal.
      if (!value.ok) refuse(fieldNames.authHeaderValue ?? 'header value', value.reason);
      authHeaderName = request.authHeader.name;
      authHeaderValueSealed = this.headerValues.seal(request.authHeader.value);
    }
    return {
      api: request.api,
      url: request.url,
      method: request.method,
      authHeaderName,
      authHeaderValueSealed,
      ...(request.answer ? { answer: request.answer } : {}),
    };
  }

  /** The callback's own header, opened; null without one (or sealed under another JWT_SECRET). */
  authHeaderOf(callback: JobCallback): { name: string; value: string } | null {
    if (callback.authHeaderName === null || callback.authHeaderValueSealed === null) return null;
    const value = this.headerValues.open(callback.authHeaderValueSealed);
    return value === null ? null : { name: callback.authHeaderName, value };
  }

  /** Called once per compatible API, at its module's start. */
  registerRenderer(api: JobCallback['api'], renderer: JobCallbackBodyRenderer): void {
    this.renderers.set(api, renderer);
  }

  async render(job: CallbackJob, end: JobEnd): Promise<Record<string, unknown> | null> {
    const callback = job.callback;
    const renderer = callback ? this.renderers.get(callback.api) : undefined;
    return renderer ? renderer(job, end) : null;
  }

  /**
   * The HTTP status the job's callback delivery got at its last attempt (AssemblyAI's `webhook_status_code`);
   * null before an attempt, or when the last one had no answer (timeout, refused, connection error).
   */
  async statusCodeOf(transcriptionId: string): Promise<number | null> {
    const delivery = await this.dataSource.manager
      .createQueryBuilder(WebhookDelivery, 'delivery')
      .select(['delivery.id', 'delivery.attempts'])
      .where('delivery.transcriptionId = :transcriptionId', { transcriptionId })
      .orderBy('delivery.createdOn', 'DESC')
      .getOne();
    return delivery?.attempts.at(-1)?.statusCode ?? null;
  }
}
