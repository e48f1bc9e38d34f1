import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { ProblemException } from '../../common/problem/problem.exception';
import { FileStorage } from '../../storage/file-storage';
import { TranscriptionRepository } from '../transcription.repository';
import { parseByteRange } from './byte-range';

/** Serves a transcription's stored upload to the player, with byte ranges for seeking. */
@Injectable()
export class TranscriptionAudioService {
  constructor(
    private readonly transcriptions: TranscriptionRepository,
    private readonly storage: FileStorage,
  ) {}

  async send(
    workspaceId: string,
    id: string,
    rangeHeader: string | undefined,
    response: Response,
  ): Promise<void> {
    const transcription = await this.transcriptions.findAudio(workspaceId, id);
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
