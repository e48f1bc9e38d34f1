import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { DataSource } from 'typeorm';
import { AuditLog } from '../../audit/audit-log.service';
import type { Principal } from '../../common/principal/principal';
import { ProblemException } from '../../common/problem/problem.exception';
import { FileStorage } from '../../storage/file-storage';
import { TranscriptionRepository } from '../transcription.repository';
import { parseByteRange } from './byte-range';

/**
 * Serves a transcription's stored upload to the player, with byte ranges for seeking. Handing the audio out is
 * an audit event (`transcription.audio_downloaded`), committed before the first byte is sent: once per
 * download or play, that is per request from the first byte (no Range, or a Range from byte 0); the seeks of
 * a player (Ranges further on) are part of the play and write none.
 */
@Injectable()
export class TranscriptionAudioService {
  constructor(
    private readonly transcriptions: TranscriptionRepository,
    private readonly storage: FileStorage,
    private readonly audit: AuditLog,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async send(
    principal: Principal,
    id: string,
    rangeHeader: string | undefined,
    response: Response,
  ): Promise<void> {
    const transcription = await this.transcriptions.findAudio(principal.workspaceId, id);
    if (!transcription) throw ProblemException.notFound('The transcription');
    if (transcription.audioDeletedAt) {
      throw new ProblemException(
        'gone',
        `The audio was deleted by the workspace's retention on ${transcription.audioDeletedAt.toISOString()}.`,
      );
    }
    if (!transcription.storageKey) throw new ProblemException('gone', 'The audio is no longer stored.');
    const key = transcription.storageKey;
    const mediaType = transcription.mimeType ?? 'application/octet-stream';
    const size = await this.storage.size(key);
    const range = parseByteRange(rangeHeader, size);
    if (range.kind === 'unsatisfiable') {
      throw new ProblemException(
        'range-not-satisfiable',
        `The range starts beyond the end of the audio (${size} bytes).`,
        {},
        { 'Content-Range': `bytes */${size}` },
      );
    }
    const { start, end } = range.kind === 'partial' ? range.range : { start: 0, end: size - 1 };
    if (start === 0) {
      await this.dataSource.transaction((tx) =>
        this.audit.record(tx, {
          principal,
          action: 'transcription.audio_downloaded',
          target: { type: 'transcription', id },
          details: { range: range.kind === 'partial' ? `bytes=${start}-${end}` : null, size },
        }),
      );
    }
    // Only the asked bytes are read from the store (an S3 GET with a Range): a seek never copies the file.
    const body = size === 0 ? null : await this.storage.readRange(key, start, end);
    response
      .status(range.kind === 'partial' ? 206 : 200)
      .setHeader('Content-Type', mediaType)
      .setHeader('Accept-Ranges', 'bytes')
      .setHeader('Content-Length', String(Math.max(0, end - start + 1)))
      .setHeader('Cache-Control', 'private, no-store');
    if (range.kind === 'partial') response.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
    if (!body) {
      response.end();
      return;
    }
    await pipeline(body, response);
  }
}
