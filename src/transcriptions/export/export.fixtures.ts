import type { TranscriptWord } from '../../engine/engine.types';
import type { ExportableTranscription } from './export.types';

/** Test data for the export specs: realistic word streams and a seeded random generator. */

/** Words spaced evenly from `start`, each lasting 80 % of its slot. */
export function wordsFrom(
  text: string,
  speaker: string | null,
  start: number,
  secondsPerWord = 0.4,
): TranscriptWord[] {
  return text
    .split(' ')
    .filter((word) => word !== '')
    .map((word, index) => {
      const wordStart = start + index * secondsPerWord;
      return { word, start: round(wordStart), end: round(wordStart + secondsPerWord * 0.8), speaker };
    });
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** A short interview: the diarizer calls the interviewer SPEAKER_01, but she speaks first. */
export function twoSpeakerWords(): TranscriptWord[] {
  return [
    ...wordsFrom('Good morning and welcome to the show.', 'SPEAKER_01', 0.5),
    ...wordsFrom('Thank you, it is a pleasure to be here.', 'SPEAKER_00', 4),
    ...wordsFrom('Tell us how the project started, in your own words.', 'SPEAKER_01', 8.2),
    ...wordsFrom(
      'It started in a garage in Zürich with two laptops and far too much coffee.',
      'SPEAKER_00',
      13,
    ),
  ];
}

/** About three minutes of one speaker with commas but few sentence ends. */
export function monologueWords(): TranscriptWord[] {
  const sentence =
    'when we first looked at the recordings from the field, the noise was everywhere, trucks, wind, people ' +
    'talking over each other, and yet the speech itself was perfectly clear if you listened closely enough';
  const words: TranscriptWord[] = [];
  for (let repeat = 0; repeat < 12; repeat += 1) {
    const text = `${sentence}${repeat % 4 === 3 ? '.' : ','}`;
    words.push(...wordsFrom(text, 'SPEAKER_00', words.length * 0.38, 0.38));
  }
  return words;
}

export const LONG_WORD = 'Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft';

export function transcriptionWith(overrides: Partial<ExportableTranscription> = {}): ExportableTranscription {
  const words = overrides.words ?? twoSpeakerWords();
  return {
    id: '7b0c2a9e-4f0e-4a5c-9d43-2a1f6f3c9b10',
    originalFileName: 'Interview Müller.mp3',
    model: 'premium',
    createdOn: new Date('2025-03-04T10:00:00.000Z'),
    completedAt: new Date('2025-03-04T10:02:30.000Z'),
    duration: 21.7,
    language: null,
    detectedLanguage: 'de',
    resultText: words.map((word) => word.word).join(' '),
    speakerCount: 2,
    wordCount: words.length,
    words,
    ...overrides,
  };
}

/** mulberry32: small, seeded, so property tests are reproducible (the one the contract tools draw with). */
export { seededRandom } from '../../openapi/request-examples';

const VOCABULARY = [
  'a',
  'I',
  'ok',
  'the',
  'speech',
  'über',
  'naïve',
  'café',
  '👍',
  'déjà-vu',
  'co-operation',
  'x',
];
const ENDINGS = ['', '', '', '', '', ',', '.', '?', '!', ';'];

/** Random words: odd lengths, emoji, punctuation, pauses, speaker switches, the odd overlong word. */
export function randomWords(random: () => number, count: number): TranscriptWord[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const speakers = [null, 'SPEAKER_00', 'SPEAKER_01', '2'];
  const words: TranscriptWord[] = [];
  let time = random() * 3;
  let speaker = pick(speakers);
  for (let index = 0; index < count; index += 1) {
    if (random() < 0.05) {
      speaker = pick(speakers);
    }
    time += random() < 0.05 ? 1 + random() * 3 : random() * 0.2;
    const length = random() < 0.1 ? 3 + random() * 3 : 0.05 + random() * 0.6;
    const base = random() < 0.02 ? LONG_WORD.slice(0, 43 + Math.floor(random() * 30)) : pick(VOCABULARY);
    words.push({ word: base + pick(ENDINGS), start: time, end: time + length, speaker });
    time += length;
  }
  return words;
}
