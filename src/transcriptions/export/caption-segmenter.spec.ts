import type { TranscriptWord } from '../../engine/engine.types';
import { layoutCaptionLines } from './caption-lines';
import { segmentCaptions, type CaptionCue } from './caption-segmenter';
import {
  LONG_WORD,
  monologueWords,
  randomWords,
  seededRandom,
  twoSpeakerWords,
  wordsFrom,
} from './export.fixtures';
import { endsSentence, normalizeWordText, textWidth } from './timed-word';

const MAX_LINE = 42;
const labelPrefix = (speaker: string | null): string | null => (speaker === null ? null : `[${speaker}]: `);

const cueText = (cue: CaptionCue): string =>
  cue.lines
    .join(' ')
    .slice(cue.prefix === null ? 0 : cue.prefix.trimEnd().length)
    .trim();

describe('segmentCaptions on realistic speech', () => {
  it('cuts at speaker changes and sentence ends and labels each new speaker once', () => {
    const cues = segmentCaptions(twoSpeakerWords(), { speakerPrefix: labelPrefix });
    expect(cues.map((cue) => cue.lines)).toEqual([
      ['[SPEAKER_01]: Good morning', 'and welcome to the show.'],
      ['[SPEAKER_00]: Thank you, it', 'is a pleasure to be here.'],
      ['[SPEAKER_01]: Tell us how the', 'project started, in your own words.'],
      // 88 characters with the prefix: two even cues rather than a full one and an orphan "much coffee."
      ['[SPEAKER_00]: It started', 'in a garage in Zürich'],
      ['with two laptops and far too much coffee.'],
    ]);
    expect(cues.map((cue) => cue.speaker)).toEqual([
      'SPEAKER_01',
      'SPEAKER_00',
      'SPEAKER_01',
      'SPEAKER_00',
      'SPEAKER_00',
    ]);
  });

  it('times a cue from its first word start to its last word end', () => {
    const [first, second] = segmentCaptions(twoSpeakerWords());
    expect(first.start).toBe(0.5);
    expect(first.end).toBe(0.5 + 6 * 0.4 + 0.32);
    expect(second.start).toBe(4);
  });

  it('starts a new cue after a long pause even mid-sentence', () => {
    const words = [...wordsFrom('so what I', null, 0), ...wordsFrom('wanted to say', null, 3)];
    expect(segmentCaptions(words).map((cue) => cue.words.join(' '))).toEqual(['so what I', 'wanted to say']);
    const shortPause = [...wordsFrom('so what I', null, 0), ...wordsFrom('wanted to say', null, 2)];
    expect(segmentCaptions(shortPause)).toHaveLength(1);
  });

  it('keeps fast speech within 7 seconds per cue even when the text would fit', () => {
    const slow = wordsFrom('one two three four five six seven eight nine ten', null, 0, 1);
    const cues = segmentCaptions(slow);
    expect(cues.map((cue) => cue.words.length)).toEqual([5, 5]);
    for (const cue of cues) {
      expect(cue.end - cue.start).toBeLessThanOrEqual(7);
    }
  });

  it('splits a long monologue evenly instead of leaving orphan words', () => {
    const cues = segmentCaptions(monologueWords());
    expect(cues.length).toBeGreaterThan(20);
    for (const cue of cues) {
      expect(cue.words.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('prefers to cut after a comma when that costs little balance', () => {
    const words = wordsFrom(
      'we met the engineers from the plant in the morning, and after lunch we drove out to the coast',
      null,
      0,
      0.3,
    );
    const cues = segmentCaptions(words);
    expect(cues.map((cue) => cue.words.join(' '))).toEqual([
      'we met the engineers from the plant in the morning,',
      'and after lunch we drove out to the coast',
    ]);
  });

  it('gives a word longer than a line a cue of its own and loses nothing around it', () => {
    const words = wordsFrom(`the company is called ${LONG_WORD} and it is old`, 'A', 0);
    const cues = segmentCaptions(words, { speakerPrefix: labelPrefix });
    expect(cues.map((cue) => cue.lines)).toEqual([
      ['[A]: the company is called'],
      [LONG_WORD],
      ['and it is old'],
    ]);
  });

  it('keeps emoji and combining characters intact and counts them as one character', () => {
    const words = wordsFrom('Das war großartig 🎉🎉 wirklich. Ja! Naïve café über alles', null, 0);
    const cues = segmentCaptions(words);
    expect(cues.map((cue) => cue.lines.join('|'))).toEqual([
      'Das war großartig 🎉🎉 wirklich.',
      'Ja!',
      'Naïve café über alles',
    ]);
  });

  it('stretches a very short cue to half a second but never into the next cue', () => {
    const words: TranscriptWord[] = [
      { word: 'Yes.', start: 1, end: 1.1, speaker: null },
      { word: 'No.', start: 1.3, end: 1.4, speaker: null },
      { word: 'Maybe.', start: 5, end: 5.05, speaker: null },
    ];
    expect(segmentCaptions(words).map((cue) => [cue.start, cue.end])).toEqual([
      [1, 1.3],
      [1.3, 1.8],
      [5, 5.5],
    ]);
  });

  it('returns no cues for no words, or only blank words', () => {
    expect(segmentCaptions([])).toEqual([]);
    expect(segmentCaptions([{ word: '  ', start: 0, end: 1, speaker: null }])).toEqual([]);
  });

  it('survives broken timings: zero-length, reversed and overlapping words', () => {
    const words: TranscriptWord[] = [
      { word: 'first', start: 2, end: 2, speaker: null },
      { word: 'second.', start: 2, end: 1, speaker: null },
      { word: 'third', start: 1.5, end: 1.6, speaker: null },
    ];
    const cues = segmentCaptions(words);
    expect(cues.map((cue) => cue.words)).toEqual([['first', 'second.'], ['third']]);
    expect(cues[0].end).toBeGreaterThan(cues[0].start);
    expect(cues[1].start).toBeGreaterThanOrEqual(cues[0].end);
    expect(cues[1].end).toBeGreaterThan(cues[1].start);
  });
});

describe('segmentCaptions properties over random word streams', () => {
  const streams = Array.from({ length: 150 }, (_, seed) => {
    const random = seededRandom(seed + 1);
    return randomWords(random, 1 + Math.floor(random() * 400));
  });

  const expectedWords = (words: readonly TranscriptWord[]): string[] =>
    words.map((word) => normalizeWordText(word.word)).filter((word) => word !== '');

  it.each(streams.map((words, seed) => [seed, words] as const))(
    'stream %i keeps every constraint',
    (_, words) => {
      const cues = segmentCaptions(words, { speakerPrefix: labelPrefix });

      // Every word exactly once, in order, and the printed lines say the same.
      expect(cues.flatMap((cue) => cue.words)).toEqual(expectedWords(words));
      for (const cue of cues) {
        expect(cueText(cue)).toBe(cue.words.join(' '));
      }

      const kept = words.filter((word) => normalizeWordText(word.word) !== '');
      let cursor = 0;
      let previous: CaptionCue | undefined;
      for (const cue of cues) {
        const source = kept.slice(cursor, cursor + cue.words.length);
        cursor += cue.words.length;

        // Lines: one or two, each within the width unless it is a lone overlong word or a lone prefix.
        expect(cue.lines.length).toBeGreaterThanOrEqual(1);
        expect(cue.lines.length).toBeLessThanOrEqual(2);
        for (const line of cue.lines) {
          const alone = cue.words.length === 1 && line === cue.words[0];
          if (!alone) {
            expect(textWidth(line)).toBeLessThanOrEqual(MAX_LINE);
          }
        }

        // Balance: no other feasible break is closer to the middle.
        if (cue.lines.length === 2 && cue.words.length > 1) {
          const difference = Math.abs(textWidth(cue.lines[0]) - textWidth(cue.lines[1]));
          const layoutWords = cue.words.map((text) => ({ text, width: textWidth(text) }));
          const best = layoutCaptionLines(layoutWords, cue.prefix, MAX_LINE) ?? [];
          expect(difference).toBe(Math.abs(textWidth(best[0]) - textWidth(best[1] ?? '')));
        }

        // One speaker per cue, a sentence end only at the end, no long pause inside.
        expect(new Set(source.map((word) => word.speaker)).size).toBe(1);
        expect(cue.speaker).toBe(source[0].speaker);
        cue.words.slice(0, -1).forEach((word) => expect(endsSentence(word)).toBe(false));
        for (let index = 1; index < source.length; index += 1) {
          expect(source[index].start - source[index - 1].end).toBeLessThanOrEqual(1.5 + 1e-9);
        }

        // Prefix exactly when the speaker differs from the previous cue's, and only for known speakers.
        const changed = previous === undefined || previous.speaker !== cue.speaker;
        expect(cue.prefix).toBe(changed && cue.speaker !== null ? `[${cue.speaker}]: ` : null);

        // Timing: ordered, positive, at most 7 s unless one word alone is longer, whole milliseconds.
        expect(cue.end).toBeGreaterThan(cue.start);
        expect(Math.round(cue.start * 1000) / 1000).toBe(cue.start);
        expect(Math.round(cue.end * 1000) / 1000).toBe(cue.end);
        if (cue.words.length > 1) {
          expect(cue.end - cue.start).toBeLessThanOrEqual(7 + 1e-9);
        }
        if (previous !== undefined) {
          expect(cue.start).toBeGreaterThanOrEqual(previous.end);
        }
        previous = cue;
      }
    },
  );

  it('uses no more cues than greedy packing would', () => {
    for (const words of streams.slice(0, 40)) {
      expect(segmentCaptions(words).length).toBeLessThanOrEqual(greedyCueCount(words));
    }
  });

  it('is deterministic', () => {
    expect(segmentCaptions(streams[7], { speakerPrefix: labelPrefix })).toEqual(
      segmentCaptions(streams[7], { speakerPrefix: labelPrefix }),
    );
  });
});

/** Reference: fill each cue as far as it goes within the same hard boundaries. */
function greedyCueCount(words: readonly TranscriptWord[]): number {
  const kept = words
    .map((word) => ({ ...word, word: normalizeWordText(word.word) }))
    .filter((word) => word.word !== '');
  let count = 0;
  let current: typeof kept = [];
  const fits = (candidate: typeof kept): boolean => {
    const layout = layoutCaptionLines(
      candidate.map((word) => ({ text: word.word, width: textWidth(word.word) })),
      null,
      MAX_LINE,
    );
    const span = Math.max(...candidate.map((word) => Math.max(word.start, word.end))) - candidate[0].start;
    return layout !== null && (candidate.length === 1 || span <= 7);
  };
  for (const word of kept) {
    const last = current.at(-1);
    const hard =
      last !== undefined &&
      (last.speaker !== word.speaker ||
        endsSentence(last.word) ||
        word.start - Math.max(last.start, last.end) > 1.5);
    if (last !== undefined && (hard || !fits([...current, word]))) {
      count += 1;
      current = [];
    }
    current.push(word);
  }
  return count + (current.length > 0 ? 1 : 0);
}
