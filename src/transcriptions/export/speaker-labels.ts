import type { TranscriptWord } from '../../engine/engine.types';

/** Maps a raw engine speaker id to its display label, or null when the word has no speaker. */
export type SpeakerLabeler = (speaker: string | null) => string | null;

/** The speaker ids of a multichannel transcription: a word's channel, from 1. */
const CHANNEL_SPEAKER = /^CHANNEL_([1-9][0-9]*)$/;

/**
 * Raw ids ("SPEAKER_00", "0", ...) become "Speaker 1", "Speaker 2", ... in order of first appearance, so the
 * person who talks first is always Speaker 1 whatever the diarizer called them. A multichannel transcript's
 * ids (CHANNEL_1, CHANNEL_2, ...) keep their channel's number instead: "Channel 2" is always the second
 * channel, whoever speaks first, so an agent on channel 1 has the same label in every call. A speaker the
 * workspace named (`names`, by raw id) gets that name instead, and the others keep their labels.
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
      const channel = CHANNEL_SPEAKER.exec(speaker);
      const numbered = channel ? `Channel ${channel[1]}` : `Speaker ${order}`;
      labels.set(speaker, Object.hasOwn(names, speaker) ? names[speaker] : numbered);
    }
  }
  return (speaker) => (speaker === null ? null : (labels.get(speaker) ?? null));
}
