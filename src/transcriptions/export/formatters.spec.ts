import { LONG_WORD, monologueWords, transcriptionWith, wordsFrom } from './export.fixtures';
import { formatJson } from './json.formatter';
import { formatSrt } from './srt.formatter';
import { formatTxt } from './txt.formatter';
import { escapeVttText, formatVtt } from './vtt.formatter';

describe('txt', () => {
  it('writes one timestamped, labelled paragraph per speaker turn', () => {
    expect(formatTxt(transcriptionWith())).toBe(
      [
        '[00:00:00] Speaker 1: Good morning and welcome to the show.',
        '[00:00:04] Speaker 2: Thank you, it is a pleasure to be here.',
        '[00:00:08] Speaker 1: Tell us how the project started, in your own words.',
        '[00:00:13] Speaker 2: It started in a garage in Zürich with two laptops and far too much coffee.',
      ].join('\n\n') + '\n',
    );
  });

  it('without speakers, splits paragraphs at long pauses and drops labels', () => {
    const words = [
      ...wordsFrom('First part of the talk.', null, 0),
      ...wordsFrom('After the break.', null, 65),
    ];
    expect(formatTxt(transcriptionWith({ words }))).toBe(
      '[00:00:00] First part of the talk.\n\n[00:01:05] After the break.\n',
    );
  });

  it('splits a long monologue into several paragraphs at sentence ends', () => {
    const paragraphs = formatTxt(transcriptionWith({ words: monologueWords() }))
      .trimEnd()
      .split('\n\n');
    expect(paragraphs.length).toBeGreaterThan(2);
    for (const paragraph of paragraphs.slice(0, -1)) {
      expect(paragraph).toMatch(/^\[\d\d:\d\d:\d\d\] Speaker 1: .+\.$/u);
    }
  });

  it('falls back to resultText when there are no words, and to nothing when there is no text', () => {
    expect(formatTxt(transcriptionWith({ words: [], resultText: 'Hallo Welt 👋' }))).toBe('Hallo Welt 👋\n');
    expect(formatTxt(transcriptionWith({ words: [], resultText: null }))).toBe('');
  });
});

describe('srt', () => {
  it('numbers cues, uses comma milliseconds and labels speaker changes inside the line limit', () => {
    const srt = formatSrt(transcriptionWith());
    expect(
      srt.startsWith(
        '1\n00:00:00,500 --> 00:00:03,220\nSpeaker 1: Good morning\nand welcome to the show.\n\n2\n',
      ),
    ).toBe(true);
    const blocks = srt.trimEnd().split('\n\n');
    expect(blocks.map((block) => block.split('\n')[0])).toEqual(['1', '2', '3', '4', '5']);
    expect(blocks[4]).toBe('5\n00:00:15,800 --> 00:00:18,920\nwith two laptops and far too much coffee.');
    for (const block of blocks) {
      expect(block.split('\n')[1]).toMatch(/^\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}$/u);
      block
        .split('\n')
        .slice(2)
        .forEach((line) => expect(Array.from(line).length).toBeLessThanOrEqual(42));
    }
  });

  it('keeps an overlong word whole and writes an empty file for no words', () => {
    const srt = formatSrt(transcriptionWith({ words: wordsFrom(`Der ${LONG_WORD} lebt.`, null, 0) }));
    expect(srt).toContain(`\n${LONG_WORD}\n`);
    expect(formatSrt(transcriptionWith({ words: [] }))).toBe('');
  });
});

describe('vtt', () => {
  it('starts with the header and marks speakers with voice spans', () => {
    const vtt = formatVtt(transcriptionWith());
    expect(
      vtt.startsWith(
        'WEBVTT\n\n00:00:00.500 --> 00:00:03.220\n<v Speaker 1>Good morning and welcome to the show.\n\n',
      ),
    ).toBe(true);
    expect(vtt).toContain('<v Speaker 2>Thank you, it is a pleasure to be here.');
    expect(vtt.match(/<v Speaker 2>/gu)).toHaveLength(2);
  });

  it('escapes markup characters in the text', () => {
    expect(escapeVttText('a < b && c --> d')).toBe('a &lt; b &amp;&amp; c --&gt; d');
    const vtt = formatVtt(transcriptionWith({ words: wordsFrom('R&D <script> -->', null, 0) }));
    expect(vtt).toContain('R&amp;D &lt;script&gt; --&gt;');
    expect(vtt).not.toContain('<script>');
  });

  it('is only the header for no words', () => {
    expect(formatVtt(transcriptionWith({ words: [] }))).toBe('WEBVTT\n');
  });
});

describe('json', () => {
  it('holds the record, raw words and labelled segments', () => {
    const transcription = transcriptionWith();
    const parsed = JSON.parse(formatJson(transcription));
    expect(parsed).toMatchObject({
      id: transcription.id,
      originalFileName: 'Interview Müller.mp3',
      model: 'premium',
      language: null,
      detectedLanguage: 'de',
      duration: 21.7,
      speakerCount: 2,
      wordCount: transcription.words.length,
      createdOn: '2025-03-04T10:00:00.000Z',
      completedAt: '2025-03-04T10:02:30.000Z',
      text: transcription.resultText,
    });
    expect(parsed.words[0]).toEqual({ word: 'Good', start: 0.5, end: 0.82, speaker: 'SPEAKER_01' });
    expect(parsed.words).toHaveLength(transcription.words.length);
    expect(parsed.segments).toHaveLength(4);
    expect(parsed.segments[1]).toEqual({
      speaker: 'Speaker 2',
      start: 4,
      end: 7.52,
      text: 'Thank you, it is a pleasure to be here.',
    });
  });

  it('carries each word’s confidence as the API returns it, and none where the recogniser gave none', () => {
    const words = [
      { word: 'Sure', start: 0, end: 0.4, speaker: null, confidence: 0.913 },
      { word: 'maybe', start: 0.4, end: 0.9, speaker: null },
    ];
    const parsed = JSON.parse(formatJson(transcriptionWith({ words }))) as { words: unknown[] };
    expect(parsed.words).toEqual([
      { word: 'Sure', start: 0, end: 0.4, speaker: null, confidence: 0.913 },
      { word: 'maybe', start: 0.4, end: 0.9, speaker: null },
    ]);
  });

  it('is pretty-printed and keeps non-ASCII text as UTF-8', () => {
    const json = formatJson(transcriptionWith({ words: wordsFrom('Grüße 🎉', null, 0), completedAt: null }));
    expect(json).toContain('\n  "id": ');
    expect(json).toContain('"word": "Grüße"');
    expect(json).toContain('🎉');
    expect(JSON.parse(json).completedAt).toBeNull();
  });
});
