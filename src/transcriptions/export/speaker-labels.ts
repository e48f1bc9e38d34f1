import type { TranscriptWord } from '../../engine/engine.types';

/** Maps a raw engine speaker id to its display label, or null when the word has no speaker. */
export type SpeakerLabeler = (speaker: string | null) => string | null;

/**
 * Raw ids ("SPEAKER_00", "0", ...) become "Speaker 1", "Speaker 2", ... in order of first appearance, so the
 * person who talks first is always Speaker 1 whatever the diarizer called them.
 */
export function createSpeakerLabeler(words: readonly Pick<TranscriptWord, 'speaker'>[]): SpeakerLabeler {
  const labels = new Map<string, string>();
  for (const { speaker } of words) {
    if (speaker !== null && speaker !== undefined && !labels.has(speaker)) {
      labels.set(speaker, `Speaker ${labels.size + 1}`);
    }
  }
  return (speaker) => (speaker === null ? null : (labels.get(speaker) ?? null));
}
