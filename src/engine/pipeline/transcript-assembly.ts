import type { RecognizedWord, SpeakerTurn, TranscriptWord } from '../engine.types';

/** Gives each word the speaker of the turn it overlaps most; a word in no turn gets the nearest turn's. */
export function assignSpeakers(
  words: readonly RecognizedWord[],
  turns: readonly SpeakerTurn[],
): TranscriptWord[] {
  return words.map((word) => ({ ...word, speaker: speakerOf(word, turns) }));
}

function speakerOf(word: RecognizedWord, turns: readonly SpeakerTurn[]): string | null {
  let best: SpeakerTurn | null = null;
  let bestOverlap = 0;
  let nearest: SpeakerTurn | null = null;
  let nearestDistance = Number.POSITIVE_INFINITY;
  for (const turn of turns) {
    const overlap = Math.min(word.end, turn.end) - Math.max(word.start, turn.start);
    if (overlap > bestOverlap) {
      best = turn;
      bestOverlap = overlap;
    }
    const distance = Math.max(turn.start - word.end, word.start - turn.end, 0);
    if (distance < nearestDistance) {
      nearest = turn;
      nearestDistance = distance;
    }
  }
  return (best ?? nearest)?.speaker ?? null;
}

export function countSpeakers(words: readonly TranscriptWord[]): number {
  return new Set(words.map((word) => word.speaker).filter((speaker) => speaker !== null)).size;
}

/** Joins words with single spaces; punctuation and clitics that a recogniser emits alone attach to the left. */
export function joinWords(words: readonly { word: string }[]): string {
  let text = '';
  for (const { word } of words) {
    const token = word.trim();
    if (token.length === 0) continue;
    const attaches = /^([.,!?;:%)\]}]|'(s|t|re|ve|ll|d|m)\b|n't\b)/i.test(token);
    text += text.length === 0 || attaches ? token : ` ${token}`;
  }
  return text;
}

/** The speaker id of a channel's words in a multichannel transcription: CHANNEL_1, CHANNEL_2, … (1-based). */
export function channelSpeaker(channelIndex: number): string {
  return `CHANNEL_${channelIndex + 1}`;
}

/**
 * Words of separately recognised channels as one transcript: each word's speaker is its channel, and the
 * words are ordered by start time; words that start together keep their channel order (channel 1 first), and
 * each channel's words keep their own order.
 */
export function mergeChannelWords(channels: readonly (readonly RecognizedWord[])[]): TranscriptWord[] {
  return channels
    .flatMap((words, channel) =>
      words.map((word, position) => ({
        word: { ...word, speaker: channelSpeaker(channel) },
        channel,
        position,
      })),
    )
    .sort((a, b) => a.word.start - b.word.start || a.channel - b.channel || a.position - b.position)
    .map(({ word }) => word);
}
