import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingMessage } from 'node:http';
import { DataSource } from 'typeorm';
import { FileStorage } from '../../storage/file-storage';
import { HttpConfig, lingerBounds } from '../../common/http/http.config';
import { refuseUnreadBody } from '../../common/http/lingering-close';
import { newUploadKey, type StoredUpload, uploadInspector } from '../upload/multipart-upload';
import { storeRawUpload } from '../upload/raw-upload';
import { UploadedAudio } from './uploaded-audio.entity';

/** How long an upload can be named by a transcript request (AssemblyAI keeps its uploads for a day too). */
export const UPLOADED_AUDIO_TTL_HOURS = 24;
const PURGE_BATCH_SIZE = 100;

/**
 * Files uploaded ahead of their transcription (UploadedAudio): stored from a raw body, found again by id within
 * their own workspace, copied for each job that names them, deleted when they expire (by the retention purge).
 */
@Injectable()
export class UploadedAudioService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly httpConfig: HttpConfig,
  ) {}

  /** Streams the request's body to storage (the upload limit applies) and records it; resolves with its id. */
  async store(workspaceId: string, request: IncomingMessage): Promise<UploadedAudio> {
    let file: StoredUpload;
    try {
      file = await storeRawUpload(request, this.storage);
    } catch (error) {
      // Refused before the body was read (a declared length over the limit): a lingering close, as uploads get.
      refuseUnreadBody(request, lingerBounds(this.httpConfig));
      throw error;
    }
    try {
      const repository = this.dataSource.getRepository(UploadedAudio);
      return await repository.save(
        repository.create({
          workspaceId,
          storageKey: file.storageKey,
          fileName: file.originalFileName,
          size: file.size,
          sha256: file.sha256,
          expiresAt: new Date(Date.now() + UPLOADED_AUDIO_TTL_HOURS * 3600_000),
        }),
      );
    } catch (error) {
      await this.storage.delete(file.storageKey).catch(() => undefined);
      throw error;
    } finally {
      await file.local.release().catch(() => undefined);
    }
  }

  /** The workspace's upload `id` while it has not expired; null otherwise (another workspace's is null too). */
  async find(workspaceId: string, id: string): Promise<UploadedAudio | null> {
    return this.dataSource
      .getRepository(UploadedAudio)
      .createQueryBuilder('upload')
      .where('upload.id = :id AND upload.workspace_id = :workspaceId AND upload.expires_at > now()', {
        id,
        workspaceId,
      })
      .getOne();
  }

  /** A copy of the upload for one job, hashed and with a local copy for the probe, as an uploaded file is. */
  async copyForJob(upload: UploadedAudio): Promise<StoredUpload> {
    const storageKey = newUploadKey();
    const { inspect, describe } = uploadInspector(storageKey, upload.fileName);
    const source = await this.storage.readRange(upload.storageKey, 0, Math.max(0, upload.size - 1));
    return describe(await this.storage.writeWithLocalCopy(storageKey, source.pipe(inspect)));
  }

  /** Deletes expired uploads (objects first, then rows, in batches); resolves with how many went. */
  async purgeExpired(now = new Date()): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.dataSource.transaction(async (tx) => {
        const expired: Array<{ id: string; storage_key: string }> = await tx.query(
          `SELECT id, storage_key FROM uploaded_audio WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2
             FOR UPDATE SKIP LOCKED`,
          [now, PURGE_BATCH_SIZE],
        );
        for (const row of expired) await this.storage.delete(row.storage_key);
        if (expired.length > 0) {
          await tx.query(`DELETE FROM uploaded_audio WHERE id = ANY($1::uuid[])`, [
            expired.map((row) => row.id),
          ]);
        }
        return expired.length;
      });
      deleted += batch;
      if (batch < PURGE_BATCH_SIZE) return deleted;
    }
  }
}
