import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../../auth/principal';
import { TranscriptionBilling } from '../../billing/transcription-billing.service';
import { ProblemException } from '../../common/problem/problem.exception';
import { EngineSettingsPending } from '../../config/engine-settings-pending';
import { OutboundUrlConfig } from '../../webhooks/outbound-url.config';
import { TranscriptionsConfig } from '../transcriptions.config';
import { measureMediaDuration, probeMedia } from '../../engine/audio/media-probe';
import { formatHours } from '../../engine/speech/audio-length.guard';
import { FileStorage } from '../../storage/file-storage';
import { WebhookTargetPolicy } from '../../webhooks/webhook-target-policy';
import {
  type IdempotencyClaim,
  IdempotencyService,
  implicitIdempotencyKey,
  parseIdempotencyKey,
  requestFingerprint,
  type StoredResponse,
} from '../idempotency.service';
import type { Transcription } from '../transcription.entity';
import { toCreatedTranscription } from '../transcription.views';
import { TranscriptionsService } from '../transcriptions.service';
import { acceptedMediaType } from './media-type';
import {
  assertDeclaredLengthWithinLimit,
  MAX_UPLOAD_BYTES,
  parseMultipartUpload,
  type StoredUpload,
} from './multipart-upload';
import { parseUploadOptions, recognisedChannels, type UploadOptions } from './upload-options';
import { fetchAudioUrl } from './url-intake';

/** What another API's form (see acceptForm) decides about an upload before its job exists. */
export interface UploadForm {
  /** The route as the Idempotency-Key fingerprint names it: a key is never shared between two routes. */
  route: string;
  /**
   * Whether a request without Idempotency-Key attaches to the job of an identical earlier request of the
   * same principal (same route, fields, file name and content) while that job is queued or processing.
   */
  attachIdenticalWhileOpen: boolean;
  /**
   * The request says it retries an earlier one (the OpenAI SDKs' X-Stainless-Retry-Count ≥ 1). Without a key,
   * its billing is then checked only after the body, so a retry whose first try took the workspace's last
   * free transcription can still be attached to that try's job; if it is not, the same gate refuses it.
   */
  isRetry: boolean;
  /** The form's text fields as the job's options; throws to refuse them. */
  readOptions(fields: Record<string, string>): UploadOptions;
  /** Throws to refuse the audio's duration (stated by the container, or measured). */
  checkDuration(durationSeconds: number): void;
}

/** The answer to an upload, as bytes: a replay must send exactly what the first answer sent. */
export type UploadReply = StoredResponse;

/** The job a form upload started, or the earlier job a retry of it was attached to. */
export interface FormAdmission {
  transcriptionId: string;
  attached: boolean;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * POST /v1/transcriptions in two phases (docs/decisions.md, "Refusing an upload before its body"):
 * 1. before a byte of the body is read: the content type, a declared Content-Length over the limit, the
 *    Idempotency-Key (malformed, or still in flight: 409) and the billing gate as far as it needs no
 *    duration (402/429). These refusals close the connection, so the client stops sending.
 * 2. the body streams to storage, then fields, real media type, the stored answer of a completed key (its
 *    fingerprint needs the file) and the full billing gate are checked; whatever refuses the request also
 *    removes the stored file and releases the key. The job and the key's answer commit together.
 */
@Injectable()
export class TranscriptionUploadService {
  constructor(
    private readonly storage: FileStorage,
    private readonly transcriptions: TranscriptionsService,
    private readonly idempotency: IdempotencyService,
    private readonly billing: TranscriptionBilling,
    private readonly config: TranscriptionsConfig,
    private readonly outboundUrls: OutboundUrlConfig,
    private readonly engineConfig: EngineSettingsPending,
  ) {}

  async accept(principal: Principal, request: Request): Promise<UploadReply> {
    const claim = await this.refuseBeforeBody(principal, request, {
      acceptsJson: true,
      billingAfterBodyWithoutKey: false,
    });
    const claimedRecord = claim?.kind === 'claimed' ? claim.recordId : null;
    const lease = claimedRecord ? this.idempotency.holdClaim(claimedRecord) : null;
    let file: StoredUpload | null = null;
    let created = false;
    try {
      const parsed = request.is('application/json')
        ? { fields: await readJsonFields(request), file: null }
        : await parseMultipartUpload(request, this.storage);
      const { audio_url: audioUrl, ...fields } = parsed.fields;
      if (parsed.file && audioUrl !== undefined) {
        throw ProblemException.field('audio_url', 'send either the file part or audio_url, not both');
      }
      if (audioUrl !== undefined && claim?.kind === 'answered') {
        // A retry of an admitted URL job is answered without fetching again (the URL is the fingerprint).
        return this.idempotency.replay(claim, urlFingerprint(audioUrl, fields));
      }
      // Fields are checked before the fetch, so a bad model or language costs no download.
      const urlOptions = audioUrl !== undefined ? parseUploadOptions(fields) : null;
      file = audioUrl !== undefined ? await this.fetchUrl(audioUrl) : parsed.file;
      if (!file)
        throw new ProblemException(
          'missing-file',
          "The multipart field `file` is missing (or send the audio's URL as `audio_url`).",
        );
      const fingerprint =
        audioUrl !== undefined
          ? urlFingerprint(audioUrl, fields)
          : requestFingerprint({
              method: 'POST /v1/transcriptions',
              fields: parsed.fields,
              file: file.sha256,
              name: file.originalFileName,
            });
      if (claim?.kind === 'answered') return this.idempotency.replay(claim, fingerprint);
      const options = urlOptions ?? parseUploadOptions(parsed.fields);
      const { mimeType, durationSeconds, audioChannels } = await this.inspectMedia(file);
      const channels = recognisedChannels(options.multichannel, audioChannels);
      const answer: { reply?: UploadReply } = {};
      await this.transcriptions.create(
        principal,
        { ...file, mimeType, durationSeconds, channels },
        options,
        async (tx, transcription) => {
          const reply = admissionReply(transcription);
          if (claimedRecord) await this.idempotency.complete(tx, claimedRecord, fingerprint, reply);
          answer.reply = reply;
        },
      );
      created = true;
      if (!answer.reply) throw new Error('the transcription was created without its answer');
      return answer.reply;
    } catch (error) {
      if (claimedRecord) await this.idempotency.release(claimedRecord).catch(() => undefined);
      throw error;
    } finally {
      lease?.stop();
      if (file && (!created || claim?.kind === 'answered')) {
        await this.storage.delete(file.storageKey).catch(() => undefined);
      }
      await file?.local.release().catch(() => undefined);
    }
  }

  /**
   * The same intake for another API's form (the OpenAI-compatible route): multipart only, no `audio_url`.
   * `form` reads its own fields into the job's options and may refuse the probed duration; both happen before
   * the job exists, so a refusal costs nothing. Idempotency-Key works as in accept(); the key's stored answer
   * is the job's admission, so a retry is attached to that job. Without a key, `form.attachIdenticalWhileOpen`
   * attaches an identical request to the first one's job while it is open (claimImplicitKey).
   */
  async acceptForm(principal: Principal, request: Request, form: UploadForm): Promise<FormAdmission> {
    const claim = await this.refuseBeforeBody(principal, request, {
      acceptsJson: false,
      billingAfterBodyWithoutKey: form.attachIdenticalWhileOpen && form.isRetry,
    });
    let claimedRecord = claim?.kind === 'claimed' ? claim.recordId : null;
    let lease = claimedRecord ? this.idempotency.holdClaim(claimedRecord) : null;
    let file: StoredUpload | null = null;
    let created = false;
    try {
      const parsed = await parseMultipartUpload(request, this.storage);
      file = parsed.file;
      const options = form.readOptions(parsed.fields);
      if (!file) throw new ProblemException('missing-file', 'The multipart field `file` is missing.');
      const fingerprint = requestFingerprint({
        method: form.route,
        fields: parsed.fields,
        file: file.sha256,
        name: file.originalFileName,
      });
      if (claim?.kind === 'answered') {
        return { transcriptionId: admittedId(this.idempotency.replay(claim, fingerprint)), attached: true };
      }
      if (!claim && form.attachIdenticalWhileOpen) {
        const implicit = await this.claimImplicitKey(principal, fingerprint);
        if (implicit.kind === 'attached')
          return { transcriptionId: implicit.transcriptionId, attached: true };
        claimedRecord = implicit.recordId;
        lease = this.idempotency.holdClaim(claimedRecord);
      }
      const { mimeType, durationSeconds, audioChannels } = await this.inspectMedia(file);
      const channels = recognisedChannels(options.multichannel, audioChannels);
      form.checkDuration(durationSeconds);
      const recordId = claimedRecord;
      const transcription = await this.transcriptions.create(
        principal,
        { ...file, mimeType, durationSeconds, channels },
        options,
        async (tx, job) => {
          if (recordId) await this.idempotency.complete(tx, recordId, fingerprint, admissionReply(job));
        },
      );
      created = true;
      return { transcriptionId: transcription.id, attached: false };
    } catch (error) {
      if (claimedRecord) await this.idempotency.release(claimedRecord).catch(() => undefined);
      throw error;
    } finally {
      lease?.stop();
      if (file && !created) await this.storage.delete(file.storageKey).catch(() => undefined);
      await file?.local.release().catch(() => undefined);
    }
  }

  /**
   * A form request without Idempotency-Key claims the key derived from its principal and fingerprint. While
   * the job of the identical request that answered that key is queued or processing, this request attaches
   * to it; once that job has ended (or was deleted) its record is set aside and this request starts a job.
   */
  private async claimImplicitKey(
    principal: Principal,
    fingerprint: string,
  ): Promise<{ kind: 'claimed'; recordId: string } | { kind: 'attached'; transcriptionId: string }> {
    const key = implicitIdempotencyKey(principal.rateLimitKey, fingerprint);
    for (let attempt = 0; attempt < 3; attempt++) {
      const claim = await this.idempotency.claim(principal.workspaceId, key).catch((error: unknown) => {
        if (error instanceof ProblemException && error.slug === 'idempotency-key-in-flight') {
          throw new ProblemException(
            'idempotency-key-in-flight',
            'An identical request is still being admitted; retry when it has been (its job is then shared).',
            {},
            { 'Retry-After': '1' },
          );
        }
        throw error;
      });
      if (claim.kind === 'claimed') return claim;
      const transcriptionId = admittedId(this.idempotency.replay(claim, fingerprint));
      if (await this.isOpen(principal.workspaceId, transcriptionId))
        return { kind: 'attached', transcriptionId };
      await this.idempotency.discardAnswer(claim.recordId);
    }
    throw new ProblemException(
      'idempotency-key-in-flight',
      'Identical requests are contending; retry shortly.',
      {},
      { 'Retry-After': '1' },
    );
  }

  private async isOpen(workspaceId: string, transcriptionId: string): Promise<boolean> {
    const state = await this.transcriptions.getState(workspaceId, transcriptionId).catch((error: unknown) => {
      if (error instanceof ProblemException && error.slug === 'not-found') return null;
      throw error;
    });
    return state !== null && (state.status === 'queued' || state.status === 'processing');
  }

  /**
   * Everything that can refuse the upload without its body. A refusal here answers with
   * `Connection: close`: Node would otherwise read (and discard) the whole body to keep the connection.
   */
  private async refuseBeforeBody(
    principal: Principal,
    request: Request,
    {
      acceptsJson,
      billingAfterBodyWithoutKey,
    }: { acceptsJson: boolean; billingAfterBodyWithoutKey: boolean },
  ): Promise<IdempotencyClaim | null> {
    try {
      if (!request.is('multipart/form-data') && !(acceptsJson && request.is('application/json'))) {
        throw new ProblemException(
          'unsupported-media-type',
          acceptsJson
            ? 'Upload the file as multipart/form-data, or send {"audio_url": …} as application/json.'
            : 'Upload the file as multipart/form-data.',
        );
      }
      assertDeclaredLengthWithinLimit(request);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      // Claimed before the body: a retry sent while the first upload still streams gets 409 at once.
      const claim = key ? await this.idempotency.claim(principal.workspaceId, key) : null;
      // A key that already has its answer is a retry of a job that was admitted: it gets that answer even
      // when the workspace could not start a new job now (the job may have taken the last free one).
      // So does a keyless retry that may be attached to its first try's job (UploadForm.isRetry).
      if (claim?.kind !== 'answered' && !(claim === null && billingAfterBodyWithoutKey)) {
        await this.precheckBilling(principal.workspaceId, claim);
      }
      return claim;
    } catch (error) {
      request.res?.setHeader('Connection', 'close');
      throw error;
    }
  }

  private async precheckBilling(workspaceId: string, claim: IdempotencyClaim | null): Promise<void> {
    try {
      await this.billing.precheck(workspaceId);
    } catch (error) {
      if (claim?.kind === 'claimed') await this.idempotency.release(claim.recordId).catch(() => undefined);
      throw error;
    }
  }

  /** `audio_url` instead of a file part (docs/decisions.md, "Transcribing from a URL"). */
  private fetchUrl(audioUrl: string): Promise<StoredUpload> {
    if (audioUrl.trim() === '') throw ProblemException.field('audio_url', 'audio_url must not be empty');
    return fetchAudioUrl(audioUrl.trim(), this.storage, new WebhookTargetPolicy(this.outboundUrls), {
      maxBytes: Math.min(this.config.URL_FETCH_MAX_BYTES, MAX_UPLOAD_BYTES),
      timeoutMs: this.config.URL_FETCH_TIMEOUT_MS,
      allowPrivateTargets: this.outboundUrls.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
  }

  /**
   * The real media type (from the bytes and ffprobe), the first audio stream's channel count (null when ffprobe
   * states none) and the audio's duration: the one the container states,
   * else measured from its packets, so every gate (free limit, quote, the OpenAI route's limit) has one before
   * the job exists. Audio longer than MAX_AUDIO_DURATION_HOURS is refused here; the engine stops any job whose
   * decoded audio passes the duration it was admitted with (a header can understate it).
   */
  private async inspectMedia(
    file: StoredUpload,
  ): Promise<{ mimeType: string; durationSeconds: number; audioChannels: number | null }> {
    const probe = await probeMedia(file.local.path).catch(() => null);
    const mimeType = acceptedMediaType(file.head, probe);
    if (!mimeType) {
      throw new ProblemException(
        'unsupported-format',
        'The file is not a decodable MP3, WAV, FLAC, OGG, M4A, AAC, MP4, MKV, WebM or MOV with an audio track.',
      );
    }
    const maxSeconds = this.engineConfig.MAX_AUDIO_DURATION_HOURS * 3600;
    // Measuring stops a minute past the maximum: a longer file is refused whatever its exact length.
    const durationSeconds =
      probe?.durationSeconds ??
      (await measureMediaDuration(file.local.path, { stopAfterSeconds: maxSeconds + 60 }).catch(() => null));
    if (durationSeconds === null) {
      throw ProblemException.field('file', 'the duration of the audio could not be determined');
    }
    if (durationSeconds > maxSeconds) {
      throw ProblemException.field(
        'file',
        `the audio lasts ${formatHours(durationSeconds)}; this service transcribes at most ${formatHours(maxSeconds)} per file`,
      );
    }
    return { mimeType, durationSeconds, audioChannels: probe?.audioChannels ?? null };
  }
}

/** What an upload answers once its job exists (202); an Idempotency-Key stores it as its answer. */
function admissionReply(transcription: Transcription): UploadReply {
  return {
    status: 202,
    contentType: JSON_CONTENT_TYPE,
    body: JSON.stringify({ data: toCreatedTranscription(transcription) }),
  };
}

/** The job an admission reply names. */
function admittedId(reply: UploadReply): string {
  return (JSON.parse(reply.body) as { data: { id: string } }).data.id;
}

function urlFingerprint(audioUrl: string, fields: Record<string, string>): string {
  return requestFingerprint({
    method: 'POST /v1/transcriptions',
    fields: { ...fields, audio_url: audioUrl },
  });
}

const MAX_JSON_BODY_BYTES = 64 * 1024;

/**
 * The JSON form of the request (`{"audio_url": …, "model": …}`), as the same text fields as the multipart
 * form: strings as sent, numbers as their text, arrays and objects (vocabulary, metadata) as JSON.
 */
async function readJsonFields(request: Request): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_JSON_BODY_BYTES) {
      throw new ProblemException(
        'malformed-request',
        'The JSON body exceeds 64 KB.',
        {},
        { Connection: 'close' },
      );
    }
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ProblemException('malformed-request', 'The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ProblemException.validation({ formErrors: ['the JSON body must be an object'] });
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    fields[name] =
      typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return fields;
}
