import type { TranscriptWord } from '../../engine/engine.types';

/** Maps a raw engine speaker id to its display label, or null when the word has no speaker. */
export type SpeakerLabeler = (speaker: string | null) => string | null;

/**
 * Raw ids ("SPEAKER_00", "0", ...) become "Speaker 1", "Speaker 2", ... in order of first appearance, so the
 * person who talks first is always Speaker 1 whatever the diarizer called them; a speaker the workspace
 * named (`names`, by raw id) gets that name instead, and the others keep their numbers.
 */
export function createSpeakerLabeler(
  words: readonly Pick<TranscriptWord, 'speaker'>[],
  names: Readonly<Record<string, string>> = {},
): SpeakerLabeler {
  const labels = new Map<string, string>();
  let order = 0;
  for (const { speaker } of words) {
    if (speaker !== null && speaker !== undefined && !labels.has(speaker)) {
      order += 1;
      labels.set(speaker, Object.hasOwn(names, speaker) ? names[speaker] : `Speaker ${order}`);
    }
  }
  return (speaker) => (speaker === null ? null : (labels.get(speaker) ?? null));
}
