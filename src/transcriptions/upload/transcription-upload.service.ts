import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../../auth/principal';
import { ProblemException } from '../../common/problem/problem.exception';
import { AppConfig } from '../../config/app-config';
import { probeMedia } from '../../engine/audio/media-probe';
import { formatHours } from '../../engine/speech/audio-length.guard';
import { FileStorage } from '../../storage/file-storage';
import { IdempotencyService, parseIdempotencyKey, requestFingerprint } from '../idempotency.service';
import { toCreatedTranscription } from '../transcription.views';
import { TranscriptionsService } from '../transcriptions.service';
import { acceptedMediaType } from './media-type';
import { parseMultipartUpload, type StoredUpload } from './multipart-upload';
import { parseUploadOptions } from './upload-options';

/**
 * POST /v1/transcriptions: the upload streams to storage, then fields, real media type, idempotency and the
 * billing gate are checked; whatever refuses the request also removes the stored file.
 */
@Injectable()
export class TranscriptionUploadService {
  constructor(
    private readonly storage: FileStorage,
    private readonly transcriptions: TranscriptionsService,
    private readonly idempotency: IdempotencyService,
    private readonly config: AppConfig,
  ) {}

  async accept(
    principal: Principal,
    request: Request,
  ): Promise<{ data: ReturnType<typeof toCreatedTranscription> }> {
    if (!request.is('multipart/form-data')) {
      throw new ProblemException('unsupported-media-type', 'Upload the file as multipart/form-data.');
    }
    // The body is read before anything else is refused, so clients are never cut off mid-upload
    // (only the size limit stops reading early, by design).
    const { fields, file } = await parseMultipartUpload(request, this.storage);
    if (!file) throw new ProblemException('missing-file', 'The multipart field `file` is missing.');
    let claimedRecord: string | null = null;
    try {
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      const options = parseUploadOptions(fields);
      const { mimeType, durationSeconds } = await this.inspectMedia(file);
      if (key) {
        const claim = await this.idempotency.claim(
          principal.workspaceId,
          key,
          requestFingerprint({
            method: 'POST /v1/transcriptions',
            fields,
            file: file.sha256,
            name: file.originalFileName,
          }),
        );
        if (claim.kind === 'replay') {
          await this.storage.delete(file.storageKey);
          return claim.body as { data: ReturnType<typeof toCreatedTranscription> };
        }
        claimedRecord = claim.recordId;
      }
      const transcription = await this.transcriptions.create(
        principal,
        { ...file, mimeType, durationSeconds },
        options,
      );
      const body = { data: toCreatedTranscription(transcription) };
      if (claimedRecord) await this.idempotency.complete(claimedRecord, 202, body);
      return body;
    } catch (error) {
      await this.storage.delete(file.storageKey).catch(() => undefined);
      if (claimedRecord) await this.idempotency.release(claimedRecord).catch(() => undefined);
      throw error;
    } finally {
      await file.local.release().catch(() => undefined);
    }
  }

  /**
   * The real media type (from the bytes and ffprobe) and the duration the container states. Audio longer than
   * MAX_AUDIO_DURATION_HOURS is refused here, before a job exists; the engine checks the decoded length again,
   * since a header can understate it.
   */
  private async inspectMedia(file: StoredUpload): Promise<{ mimeType: string; durationSeconds: number | null }> {
    const probe = await probeMedia(file.local.path).catch(() => null);
    const mimeType = acceptedMediaType(file.head, probe);
    if (!mimeType) {
      throw new ProblemException(
        'unsupported-format',
        'The file is not a decodable MP3, WAV, FLAC, OGG, M4A, AAC, MP4, MKV, WebM or MOV with an audio track.',
      );
    }
    const durationSeconds = probe?.durationSeconds ?? null;
    const maxSeconds = this.config.MAX_AUDIO_DURATION_HOURS * 3600;
    if (durationSeconds !== null && durationSeconds > maxSeconds) {
      throw ProblemException.field(
        'file',
        `the audio lasts ${formatHours(durationSeconds)}; this service transcribes at most ${formatHours(maxSeconds)} per file`,
      );
    }
    return { mimeType, durationSeconds };
  }
}
