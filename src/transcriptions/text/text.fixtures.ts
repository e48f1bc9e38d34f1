import type { TranscriptWord } from '../../engine/engine.types';

/** Words of `text` (split on spaces) one second apart, each 0.5 s long: word i spans i to i + 0.5. */
export function timedWords(text: string): TranscriptWord[] {
  return text
    .split(' ')
    .map((word, index) => ({ word, start: index, end: index + 0.5, speaker: 'SPEAKER_00' }));
}
