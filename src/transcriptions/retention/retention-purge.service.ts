import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditRetention } from '../../audit/audit-retention.service';
import { AuthConfig } from '../../auth/auth.config';
import { FileStorage } from '../../storage/file-storage';
import { statusIn, TERMINAL_STATUSES } from '../transcription-state';
import { UploadedAudioService } from '../uploaded-audio/uploaded-audio.service';

/** Rows one purge transaction takes at most; the run repeats until a batch comes back short. */
export const RETENTION_PURGE_BATCH_SIZE = 100;

export interface RetentionPurgeResult {
  audioDeleted: number;
  transcriptsDeleted: number;
  /** Request-log entries of API keys older than API_KEY_REQUEST_LOG_DAYS. */
  requestLogEntriesDeleted: number;
  /** Audit events older than AUDIT_RETENTION_DAYS. */
  auditEventsDeleted: number;
  /** Uploaded audio (POST /v2/upload) past its UPLOADED_AUDIO_TTL_HOURS. */
  uploadsDeleted: number;
}

/** Request-log rows one DELETE takes at most (short statements, no long lock on a big backlog). */
export const REQUEST_LOG_PURGE_BATCH_SIZE = 5_000;

/**
 * Deletes what a workspace's retention says is expired (docs/decisions.md, "Retention"). PostgreSQL is the
 * source of truth: each run selects expired rows by their timestamps, so a restart loses nothing and a
 * second run finds nothing left. Rows are taken FOR UPDATE SKIP LOCKED in batches, so two workers share the
 * work instead of fighting over it. Only finished jobs are touched (queued/processing never), and only the
 * transcription row: ledger entries and usage figures (duration, cost, word count) stay.
 *
 * - Audio: `audio_retention_days` after the job completed or failed. The stored object is deleted, then
 *   storage_key becomes null, the audio URL a compatible API was given is dropped and audio_deleted_at is set, in the transaction that holds the row lock; a store
 *   that fails rolls the batch back and the next run tries again.
 * - Text: `transcript_retention_days` after the job completed. Every column that holds words of the transcript
 *   goes: result_text, result_json, the prompt and a live session's kept words become null, the names given to its
 *   speakers `{}` (the search vector follows result_text), and transcript_deleted_at is set; exports then answer
 *   410 gone.
 */
@Injectable()
export class RetentionPurgeService {
  private readonly logger = new Logger(RetentionPurgeService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly config: AuthConfig,
    private readonly auditRetention: AuditRetention,
    private readonly uploads: UploadedAudioService,
  ) {}

  async purgeExpired(now = new Date()): Promise<RetentionPurgeResult> {
    let audioDeleted = 0;
    let transcriptsDeleted = 0;
    for (;;) {
      const batch = await this.purgeAudioBatch(now);
      audioDeleted += batch;
      if (batch < RETENTION_PURGE_BATCH_SIZE) break;
    }
    for (;;) {
      const batch = await this.purgeTranscriptBatch(now);
      transcriptsDeleted += batch;
      if (batch < RETENTION_PURGE_BATCH_SIZE) break;
    }
    let requestLogEntriesDeleted = 0;
    for (;;) {
      const batch = await this.purgeRequestLogBatch(now);
      requestLogEntriesDeleted += batch;
      if (batch < REQUEST_LOG_PURGE_BATCH_SIZE) break;
    }
    const auditEventsDeleted = await this.auditRetention.purgeExpired();
    const uploadsDeleted = await this.uploads.purgeExpired(now);
    if (
      audioDeleted ||
      transcriptsDeleted ||
      requestLogEntriesDeleted ||
      auditEventsDeleted ||
      uploadsDeleted
    ) {
      this.logger.log(
        `Retention purge: ${audioDeleted} audio file(s), ${transcriptsDeleted} transcript(s), ${requestLogEntriesDeleted} request-log entries, ${auditEventsDeleted} audit events, ${uploadsDeleted} expired upload(s)`,
      );
    }
    return { audioDeleted, transcriptsDeleted, requestLogEntriesDeleted, auditEventsDeleted, uploadsDeleted };
  }

  private async purgeRequestLogBatch(now: Date): Promise<number> {
    const deleted: unknown[] = await this.dataSource.query(
      `DELETE FROM api_key_requests WHERE id IN (
         SELECT id FROM api_key_requests WHERE at <= $1::timestamptz - $2 * INTERVAL '1 day' LIMIT $3
       ) RETURNING 1`,
      [now, this.config.API_KEY_REQUEST_LOG_DAYS, REQUEST_LOG_PURGE_BATCH_SIZE],
    );
    return deleted.length;
  }

  private purgeAudioBatch(now: Date): Promise<number> {
    return this.dataSource.transaction(async (tx) => {
      const expired: Array<{ id: string; storage_key: string | null }> = await tx.query(
        `SELECT t.id, t.storage_key FROM transcriptions t
           JOIN workspaces w ON w.id = t.workspace_id
          WHERE ${statusIn('t.status', TERMINAL_STATUSES)}
            AND t.audio_deleted_at IS NULL
            AND w.audio_retention_days IS NOT NULL
            AND COALESCE(t.completed_at, t.failed_at) + w.audio_retention_days * INTERVAL '1 day' <= $1
          ORDER BY COALESCE(t.completed_at, t.failed_at)
          LIMIT $2
          FOR UPDATE OF t SKIP LOCKED`,
        [now, RETENTION_PURGE_BATCH_SIZE],
      );
      if (expired.length === 0) return 0;
      for (const row of expired) {
        if (row.storage_key) await this.storage.delete(row.storage_key);
      }
      // The URL a compatible API was given for the audio names it (and may carry a signed link's token): it goes
      // with the audio.
      await tx.query(
        `UPDATE transcriptions SET storage_key = NULL, audio_deleted_at = $2,
                compat_request = compat_request - 'audioUrl'
          WHERE id = ANY($1::uuid[])`,
        [expired.map((row) => row.id), now],
      );
      return expired.length;
    });
  }

  private purgeTranscriptBatch(now: Date): Promise<number> {
    return this.dataSource.transaction(async (tx) => {
      const expired: Array<{ id: string }> = await tx.query(
        `SELECT t.id FROM transcriptions t
           JOIN workspaces w ON w.id = t.workspace_id
          WHERE t.status = 'completed'
            AND t.transcript_deleted_at IS NULL
            AND w.transcript_retention_days IS NOT NULL
            AND t.completed_at + w.transcript_retention_days * INTERVAL '1 day' <= $1
          ORDER BY t.completed_at
          LIMIT $2
          FOR UPDATE OF t SKIP LOCKED`,
        [now, RETENTION_PURGE_BATCH_SIZE],
      );
      if (expired.length === 0) return 0;
      await tx.query(
        `UPDATE transcriptions
            SET result_text = NULL, result_json = NULL, prompt = NULL, speaker_names = '{}', live_words = NULL,
                transcript_deleted_at = $2
          WHERE id = ANY($1::uuid[])`,
        [expired.map((row) => row.id), now],
      );
      return expired.length;
    });
  }
}
