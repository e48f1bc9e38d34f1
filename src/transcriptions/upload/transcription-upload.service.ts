import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import type { Principal } from '../../common/principal/principal';
import { TranscriptionBilling } from '../../billing/transcription-billing.service';
import { EngineConfig } from '../../engine/engine.config';
import { OutboundUrlConfig } from '../../outbound-url/outbound-url.config';
import { TranscriptionsConfig } from '../transcriptions.config';
import { OutboundUrlPolicy } from '../../outbound-url/outbound-url-policy';
import { FileStorage } from '../../storage/file-storage';
import type { StoredResponse } from '../idempotency.service';
import { HttpConfig, lingerBounds } from '../../common/http/http.config';
import { refuseUnreadBody } from '../../common/http/lingering-close';
import {
  admittedTranscriptionId,
  type IdempotentUpload,
  type KeylessRepeat,
  UploadIdempotency,
} from '../idempotent-upload';
import type { Transcription } from '../transcription.entity';
import { toCreatedTranscription } from '../transcription.views';
import { inspectMedia } from './media-inspection';
import { MAX_UPLOAD_BYTES, type StoredUpload } from './multipart-upload';
import { TemporaryFiles } from './temporary-files';
import { type InspectedUpload, TranscriptionCreator } from './transcription-creator';
import {
  type AudioSource,
  audioSource,
  type BodyShape,
  checkUploadHead,
  readUploadBody,
  uploadFingerprint,
} from './upload-body';
import { parseUploadOptions, recognisedChannels, type UploadOptions } from './upload-options';
import { fetchAudioUrl } from './url-intake';

/** What differs between the routes that upload audio (POST /v1/transcriptions, the OpenAI-compatible one). */
export interface UploadRoute<Asked> {
  /** The route as the Idempotency-Key fingerprint names it: a key is never shared between two routes. */
  name: string;
  /** How the request carries the audio and the fields (a form, or Deepgram's raw body and query string). */
  body: BodyShape;
  /** What a request without Idempotency-Key does when an identical one's job is still open. */
  keylessRepeat: KeylessRepeat;
  /**
   * The request says it retries an earlier one (the OpenAI SDKs' X-Stainless-Retry-Count ≥ 1). Without a key,
   * its billing is then checked only at creation, so a retry whose first try took the workspace's last free
   * transcription can still be attached to that try's job; if it is not, the same gate refuses it.
   */
  isRetry(request: Request): boolean;
  /**
   * The form's text fields (and the audio's URL when the request names one): the job's options and what the
   * route answers from. Throws (or rejects) to refuse them.
   */
  readFields(
    fields: Record<string, string>,
    audioUrl: string | null,
  ): { options: UploadOptions; asked: Asked } | Promise<{ options: UploadOptions; asked: Asked }>;
  /** Throws to refuse the audio's duration (stated by the container, or measured). */
  checkDuration(durationSeconds: number): void;
  /**
   * Audio a URL names that this service holds itself (AssemblyAI's `upload_url`): a copy for the job, or null
   * to fetch the URL under the outbound-URL policy. Throws to refuse the URL.
   */
  ownAudio?(principal: Principal, url: string): Promise<StoredUpload | null>;
}

/** An upload the service answered: its job, the answer as bytes (a replay is exactly the first answer). */
export interface Admission<Asked> {
  transcriptionId: string;
  reply: StoredResponse;
  asked: Asked;
  /** SHA-256 (hex) of the audio this request sent or named; null when a URL request was attached unfetched. */
  audioSha256: string | null;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const NATIVE_ROUTE: UploadRoute<null> = {
  name: 'POST /v1/transcriptions',
  body: { kind: 'form', acceptsAudioUrl: true },
  keylessRepeat: 'new-request',
  isRetry: () => false,
  readFields: (fields) => ({ options: parseUploadOptions(fields), asked: null }),
  // MAX_AUDIO_DURATION_HOURS, checked by inspectMedia, is this route's only limit.
  checkDuration: () => undefined,
};

/**
 * The intake of an upload, one step after the other (docs/decisions.md, "Upload path"): the principal comes
 * authenticated; the head's limits; the Idempotency-Key and the billing pre-check, before a byte of the body
 * is read (docs/decisions.md, "Refusing an upload before its body"); the body; the file or URL it names; the
 * key's earlier answer, if this request repeats one; the fields; the URL's audio; the probe; the billing gate
 * and the insert, which commit with the key's answer. Whatever refuses the request releases the key (UploadIdempotency.run); the
 * upload's files are removed in one place (TemporaryFiles) unless the job took them.
 */
@Injectable()
export class TranscriptionUploadService {
  private readonly outboundUrls: OutboundUrlPolicy;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly creator: TranscriptionCreator,
    private readonly idempotency: UploadIdempotency,
    private readonly billing: TranscriptionBilling,
    private readonly config: TranscriptionsConfig,
    private readonly engineConfig: EngineConfig,
    outboundUrlConfig: OutboundUrlConfig,
    private readonly httpConfig: HttpConfig,
  ) {
    this.outboundUrls = new OutboundUrlPolicy({
      allowPrivateTargets: outboundUrlConfig.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
  }

  /** POST /v1/transcriptions: the answer as bytes (a replayed Idempotency-Key answer is the first one's). */
  async accept(principal: Principal, request: Request): Promise<StoredResponse> {
    return (await this.admit(principal, request, NATIVE_ROUTE)).reply;
  }

  async admit<Asked>(
    principal: Principal,
    request: Request,
    route: UploadRoute<Asked>,
  ): Promise<Admission<Asked>> {
    try {
      checkUploadHead(request, route.body);
      return await this.idempotency.run(principal, request.headers['idempotency-key'], async (key) => {
        await this.precheckBilling(principal, request, route, key);
        const files = new TemporaryFiles(this.storage);
        return this.intake(principal, request, route, key, files).finally(() => files.removeAll());
      });
    } catch (error) {
      // A refusal before the body: a lingering close (lingering-close.ts).
      refuseUnreadBody(request, lingerBounds(this.httpConfig));
      throw error;
    }
  }

  private async intake<Asked>(
    principal: Principal,
    request: Request,
    route: UploadRoute<Asked>,
    key: IdempotentUpload,
    files: TemporaryFiles,
  ): Promise<Admission<Asked>> {
    const body = await readUploadBody(request, this.storage, files, route.body);
    const source = audioSource(body, route.body);
    const fingerprint = uploadFingerprint(route.name, body, source);
    const earlier = await key.earlierAnswer(fingerprint, route.keylessRepeat);
    // Fields are read before a URL is fetched, so a bad model or language costs no download.
    const { options, asked } = await route.readFields(body.fields, body.audioUrl);
    const started = earlier
      ? { reply: earlier, audioSha256: source.kind === 'file' ? source.file.sha256 : null }
      : await this.startJob(principal, route, key, fingerprint, source, options, files);
    return {
      transcriptionId: admittedTranscriptionId(started.reply),
      reply: started.reply,
      asked,
      audioSha256: started.audioSha256,
    };
  }

  /**
   * A key that already has its answer is a retry of a job that was admitted: it gets that answer even when
   * the workspace could not start a new job now (the job may have taken the last free one). So does a keyless
   * retry that may be attached to its first try's job (UploadRoute.isRetry).
   */
  private async precheckBilling(
    principal: Principal,
    request: Request,
    route: UploadRoute<unknown>,
    key: IdempotentUpload,
  ): Promise<void> {
    const mayAttach = !key.hasKey && route.keylessRepeat === 'attach-while-open' && route.isRetry(request);
    if (!key.repeatsAnAdmission && !mayAttach) await this.billing.precheck(principal.workspaceId);
  }

  /**
   * The uploaded file (already in `files`), or the audio fetched from `audio_url` (docs/decisions.md,
   * "Transcribing from a URL"), handed to `files` like the uploaded one.
   */
  private async audioFile(source: AudioSource, files: TemporaryFiles): Promise<StoredUpload> {
    return source.kind === 'file'
      ? source.file
      : files.track(
          await fetchAudioUrl(source.url, this.storage, this.outboundUrls, {
            maxBytes: Math.min(this.config.URL_FETCH_MAX_BYTES, MAX_UPLOAD_BYTES),
            timeoutMs: this.config.URL_FETCH_TIMEOUT_MS,
          }),
        );
  }

  /**
   * The audio, its probe, then the job: the billing gate and the insert commit with the key's answer, or
   * neither does; once committed, the job owns the stored file.
   */
  private async startJob(
    principal: Principal,
    route: UploadRoute<unknown>,
    key: IdempotentUpload,
    fingerprint: string,
    source: AudioSource,
    options: UploadOptions,
    files: TemporaryFiles,
  ): Promise<{ reply: StoredResponse; audioSha256: string }> {
    const own = source.kind === 'url' ? await route.ownAudio?.(principal, source.url) : null;
    const file = own ? files.track(own) : await this.audioFile(source, files);
    const upload = await this.inspect(file, options);
    route.checkDuration(upload.durationSeconds);
    const settings = await this.creator.settle(principal, options);
    const { job, reply } = await this.dataSource.transaction(async (tx) => {
      const job = await this.creator.insert(tx, principal, upload, settings);
      const reply = admissionReply(job);
      await key.complete(tx, fingerprint, reply);
      return { job, reply };
    });
    files.handOver(file);
    await this.creator.dispatch(job);
    return { reply, audioSha256: file.sha256 };
  }

  private async inspect(
    file: StoredUpload,
    options: UploadOptions,
  ): Promise<InspectedUpload & { durationSeconds: number }> {
    const media = await inspectMedia(file, this.engineConfig.MAX_AUDIO_DURATION_HOURS * 3600);
    return {
      ...file,
      mimeType: media.mimeType,
      durationSeconds: media.durationSeconds,
      channels: recognisedChannels(options.multichannel, media.audioChannels),
    };
  }
}

/** What an upload answers once its job exists (202); an Idempotency-Key stores it as its answer. */
function admissionReply(transcription: Transcription): StoredResponse {
  return {
    status: 202,
    contentType: JSON_CONTENT_TYPE,
    body: JSON.stringify({ data: toCreatedTranscription(transcription) }),
  };
}
