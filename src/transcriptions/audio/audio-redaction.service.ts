import { Injectable } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLine, runProcess } from '../../engine/audio/process-output.util';
import type { TimeSpan } from '../../engine/engine.types';
import { FileStorage } from '../../storage/file-storage';

/** Word times are the recogniser's estimate: the silence reaches this far past each redacted span. */
export const AUDIO_REDACTION_MARGIN_SECONDS = 0.1;

export const REDACTED_AUDIO_MEDIA_TYPE = 'audio/flac';

/** The redacted copy of a job's audio, stored next to the upload it replaces. */
export interface RedactedAudio {
  storageKey: string;
  mimeType: string;
}

/**
 * `redact_pii_audio`: the upload's audio with every redacted span silenced (ffmpeg's volume filter over those
 * times), stored as FLAC (lossless, played by every browser; a video's picture is dropped). The job swaps it
 * in for the upload when it completes, so only the redacted audio is ever served.
 */
@Injectable()
export class AudioRedactionService {
  constructor(private readonly storage: FileStorage) {}

  async store(
    sourcePath: string,
    sourceKey: string,
    spans: readonly TimeSpan[],
    signal?: AbortSignal,
  ): Promise<RedactedAudio> {
    const directory = await mkdtemp(join(tmpdir(), 'stt-redaction-'));
    try {
      const output = join(directory, 'redacted.flac');
      const result = await runProcess('ffmpeg', silencingArguments(sourcePath, spans, output), { signal });
      if (result.exitCode !== 0)
        throw new Error(`ffmpeg could not redact the audio: ${lastLine(result.stderr)}`);
      const storageKey = `${sourceKey}.redacted.flac`;
      await this.storage.write(storageKey, createReadStream(output));
      return { storageKey, mimeType: REDACTED_AUDIO_MEDIA_TYPE };
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
}

/**
 * ffmpeg's arguments: the first audio stream, silenced over each span (with the margin), to FLAC. `aeval`
 * decides per sample; the volume filter's timeline switches per frame, which left speech at a span's edges.
 */
export function silencingArguments(sourcePath: string, spans: readonly TimeSpan[], output: string): string[] {
  const windows = spans.map((span) => {
    const start = Math.max(0, span.start - AUDIO_REDACTION_MARGIN_SECONDS).toFixed(3);
    const end = (span.end + AUDIO_REDACTION_MARGIN_SECONDS).toFixed(3);
    return `between(t,${start},${end})`;
  });
  const filter = windows.length > 0 ? ['-af', `aeval='val(ch)*not(${windows.join('+')})':c=same`] : [];
  return [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-i',
    sourcePath,
    '-map',
    '0:a:0',
    '-vn',
    ...filter,
    '-c:a',
    'flac',
    output,
  ];
}
