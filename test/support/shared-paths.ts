import * as path from 'node:path';

/** The shared folder with test clips (never copied into the repo); SHARED_DIR overrides the default. */
export const SHARED_DIR = process.env.SHARED_DIR ?? path.resolve(__dirname, '../../../shared');

/** Absolute path of a clip from /work/shared/audio, e.g. sharedAudio('pocketsphinx/goforward.wav'). */
export function sharedAudio(relativePath: string): string {
  return path.join(SHARED_DIR, 'audio', relativePath);
}
