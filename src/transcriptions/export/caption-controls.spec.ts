import { layoutCaptionLines } from './caption-lines';
import { segmentCaptions } from './caption-segmenter';
import { LONG_WORD, monologueWords, randomWords, seededRandom } from './export.fixtures';
import { parseExportOptions, DEFAULT_EXPORT_OPTIONS } from './export-options';
import { textWidth } from './timed-word';

const labelPrefix = (speaker: string | null): string | null => (speaker === null ? null : `[${speaker}]: `);

describe('caption controls in segmentCaptions', () => {
  const widths = [20, 32, 42, 80, 200];
  const lineCounts = [1, 2, 3];
  const cueLimitsMs = [1000, 3000, 7000, 30000];

  it.each(widths.flatMap((width) => lineCounts.map((lines) => [width, lines] as const)))(
    'max %i characters, max %i lines: never exceeded except by one over-long word alone',
    (maxLineWidth, maxLines) => {
      for (let seed = 1; seed <= 6; seed += 1) {
        const words = randomWords(seededRandom(seed * 97 + maxLineWidth), 300);
        const cues = segmentCaptions(words, { maxLineWidth, maxLines, speakerPrefix: labelPrefix });
        for (const cue of cues) {
          expect(cue.lines.length).toBeLessThanOrEqual(maxLines);
          for (const line of cue.lines) {
            if (textWidth(line) > maxLineWidth) {
              // The one exception: a cue of a single word wider than a line (after its label when 1 line).
              expect(cue.words).toHaveLength(1);
              expect(textWidth(cue.words[0])).toBeGreaterThan(maxLineWidth - (maxLines === 1 ? 20 : 0));
            }
          }
        }
        expect(cues.flatMap((cue) => cue.words)).toHaveLength(words.length);
      }
    },
  );

  it.each(cueLimitsMs)('max cue %i ms: a cue lasts longer only when it is one word that does', (maxCueMs) => {
    for (let seed = 1; seed <= 6; seed += 1) {
      const words = randomWords(seededRandom(seed * 31 + maxCueMs), 300);
      const cues = segmentCaptions(words, { maxCueMs, maxLines: 3, maxLineWidth: 80, minCueMs: 0 });
      for (const cue of cues) {
        if ((cue.end - cue.start) * 1000 > maxCueMs + 0.5) {
          expect(cue.words).toHaveLength(1);
        }
      }
    }
  });

  it('a single word longer than the cue limit is a cue of its own, longer than the limit', () => {
    const words = [
      { word: 'short', start: 0, end: 0.5, speaker: null },
      { word: 'looooong', start: 0.6, end: 4.6, speaker: null },
      { word: 'after', start: 4.7, end: 5, speaker: null },
    ];
    const cues = segmentCaptions(words, { maxCueMs: 2000 });
    expect(cues.map((cue) => cue.words)).toEqual([['short'], ['looooong'], ['after']]);
    expect(cues[1].end - cues[1].start).toBeCloseTo(4, 3);
  });

  it('shorter cues and lines change the layout: fewer characters give more cues', () => {
    const words = monologueWords();
    const wide = segmentCaptions(words, { maxLineWidth: 80, maxLines: 3, maxCueMs: 30000 });
    const narrow = segmentCaptions(words, { maxLineWidth: 20, maxLines: 1, maxCueMs: 2000 });
    expect(narrow.length).toBeGreaterThan(wide.length);
    expect(narrow.every((cue) => cue.lines.length === 1)).toBe(true);
  });

  it('three lines are balanced: the widest line is as narrow as possible', () => {
    const words = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen'
      .split(' ')
      .map((text) => ({ text, width: textWidth(text) }));
    const lines = layoutCaptionLines(words, null, 30, 3);
    expect(lines).not.toBeNull();
    expect(lines).toHaveLength(3);
    const widest = Math.max(...(lines ?? []).map(textWidth));
    expect(widest).toBeLessThanOrEqual(30);
    // 80 characters in three lines: nothing narrower than 28 can hold them.
    expect(widest).toBeLessThanOrEqual(28);
    expect((lines ?? []).join(' ')).toBe(words.map((word) => word.text).join(' '));
  });

  it('one line per cue: a label shares the line, a word wider than the line stands with it', () => {
    expect(layoutCaptionLines([{ text: 'hello', width: 5 }], 'S1: ', 20, 1)).toEqual(['S1: hello']);
    expect(layoutCaptionLines([{ text: LONG_WORD, width: textWidth(LONG_WORD) }], 'S1: ', 20, 1)).toEqual([
      `S1: ${LONG_WORD}`,
    ]);
    expect(
      layoutCaptionLines(
        ['hello', 'world', 'again'].map((text) => ({ text, width: 5 })),
        null,
        12,
        1,
      ),
    ).toBeNull();
  });
});

describe('parseExportOptions', () => {
  it('defaults reproduce the exports without controls', () => {
    expect(parseExportOptions('srt', {})).toEqual(DEFAULT_EXPORT_OPTIONS);
  });

  it('reads the caption controls for srt and vtt', () => {
    const query = {
      max_chars_per_line: '32',
      max_lines: '3',
      max_cue_seconds: '2.5',
      speaker_labels: 'false',
    };
    expect(parseExportOptions('vtt', query).captions).toEqual({
      maxCharsPerLine: 32,
      maxLines: 3,
      maxCueSeconds: 2.5,
      speakerLabels: false,
    });
  });

  it('reads timestamps and speaker_labels for txt and docx, ignores caption controls there', () => {
    const query = { timestamps: 'false', speaker_labels: 'false', max_lines: '99' };
    expect(parseExportOptions('txt', query).transcript).toEqual({ timestamps: false, speakerLabels: false });
    expect(parseExportOptions('docx', query).transcript).toEqual({ timestamps: false, speakerLabels: false });
  });

  it('ignores every control for json, and timestamps for captions', () => {
    expect(parseExportOptions('json', { max_lines: 'x', timestamps: 'maybe' })).toEqual(
      DEFAULT_EXPORT_OPTIONS,
    );
    expect(parseExportOptions('srt', { timestamps: 'maybe' })).toEqual(DEFAULT_EXPORT_OPTIONS);
  });

  it.each([
    ['max_chars_per_line', '19'],
    ['max_chars_per_line', '201'],
    ['max_chars_per_line', '42.5'],
    ['max_chars_per_line', 'abc'],
    ['max_chars_per_line', ''],
    ['max_chars_per_line', '1e2'],
    ['max_lines', '0'],
    ['max_lines', '4'],
    ['max_cue_seconds', '0.5'],
    ['max_cue_seconds', '31'],
    ['max_cue_seconds', '-3'],
    ['speaker_labels', 'True'],
    ['speaker_labels', '1'],
    ['max_lines', ['2', '2']],
  ])('%s=%j is a validation problem naming the field', (field, value) => {
    expect(() => parseExportOptions('srt', { [field]: value })).toThrow(
      expect.objectContaining({
        slug: 'validation',
        extensions: { errors: { fieldErrors: { [field]: [expect.any(String)] }, formErrors: [] } },
      }),
    );
  });

  it('names every invalid field at once', () => {
    expect(() => parseExportOptions('txt', { timestamps: 'yes', speaker_labels: 'no' })).toThrow(
      expect.objectContaining({
        extensions: {
          errors: {
            fieldErrors: { timestamps: [expect.any(String)], speaker_labels: [expect.any(String)] },
            formErrors: [],
          },
        },
      }),
    );
  });
});
