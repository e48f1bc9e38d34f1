import { testAudio } from '../../../test/support/shared-paths';
import { wordErrorRate } from '../../../bench/lib/word-error-rate';
import { decodeToPcm } from '../audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../engine-settings';
import type { RecognitionOutput } from '../engine.types';
import { PocketSphinxRecognizer } from './pocketsphinx-recognizer';
import * as fs from 'node:fs';

const LDC93S1_REFERENCE = 'she had your dark suit in greasy wash water all year';

describe('PocketSphinxRecognizer', () => {
  const recognizer = new PocketSphinxRecognizer(defaultEngineSettings().pocketsphinx);
  const signal = new AbortController().signal;
  afterAll(() => recognizer.close());

  async function recognize(clip: string, vocabulary: string[] = [], offset = 0): Promise<RecognitionOutput> {
    const pcm = await decodeToPcm(testAudio(clip));
    return recognizer.recognize({ samples: pcm.samples, offset }, { language: 'en', vocabulary, signal });
  }

  it('transcribes goforward.wav exactly, with word times in the file', async () => {
    const output = await recognize('pocketsphinx/goforward.wav');
    expect(output.words.map((word) => word.word)).toEqual(['Go', 'forward', 'ten', 'meters.']);
    expect(output.detectedLanguage).toBe('en');
    let previousEnd = 0;
    for (const word of output.words) {
      expect(word.start).toBeGreaterThanOrEqual(previousEnd);
      expect(word.end).toBeGreaterThan(word.start);
      expect(word.end).toBeLessThanOrEqual(2.79);
      previousEnd = word.end;
    }
    expect(output.words[0].start).toBeCloseTo(0.46, 1);
  });

  it('gives each word its lattice posterior as confidence in 0..1, not one constant', async () => {
    const output = await recognize('wenet/librispeech-1995-1837-0001.wav');
    const confidences = output.words.map((word) => word.confidence);
    expect(confidences.length).toBeGreaterThan(5);
    for (const confidence of confidences) {
      expect(typeof confidence).toBe('number');
      expect(confidence).toBeGreaterThanOrEqual(0);
      expect(confidence).toBeLessThanOrEqual(1);
    }
    expect(new Set(confidences).size).toBeGreaterThan(1);
  });

  it('adds the chunk offset to word times', async () => {
    const output = await recognize('pocketsphinx/goforward.wav', [], 100);
    expect(output.words[0].start).toBeCloseTo(100.46, 1);
  });

  it('keeps a LibriSpeech sentence under 30 % WER', async () => {
    const clip = 'wenet/librispeech-1995-1837-0001.wav';
    const output = await recognize(clip);
    const reference = fs.readFileSync(testAudio(clip.replace('.wav', '.txt')), 'utf8');
    const hypothesis = output.words.map((word) => word.word).join(' ');
    expect(wordErrorRate(reference, hypothesis).rate).toBeLessThan(0.3);
  });

  it('writes a real clip as sentences: capital first word, full stops, lower case inside', async () => {
    const output = await recognize('wenet/librispeech-1995-1837-0001.wav');
    const words = output.words.map((word) => word.word);
    expect(words[0]).toMatch(/^[A-Z]/);
    expect(words.at(-1)).toMatch(/\.$/);
    words.forEach((word, index) => {
      const afterFullStop = index > 0 && words[index - 1].endsWith('.');
      // Inside a sentence only "I" (and its contractions) is capitalised.
      if (index > 0 && !afterFullStop && !/^I('|$)/.test(word)) expect(word).toBe(word.toLowerCase());
    });
  });

  it('lets a vocabulary fix words the generic language model gets wrong', async () => {
    const plain = await recognize('coqui-stt/LDC93S1.wav');
    const plainText = plain.words.map((word) => word.word).join(' ');
    const boosted = await recognize('coqui-stt/LDC93S1.wav', ['greasy', 'wash water', 'dark suit']);
    const boostedText = boosted.words.map((word) => word.word).join(' ');
    expect(plainText).not.toContain('greasy');
    expect(boostedText).toContain('greasy');
    expect(wordErrorRate(LDC93S1_REFERENCE, boostedText).rate).toBeLessThan(
      wordErrorRate(LDC93S1_REFERENCE, plainText).rate,
    );
  });

  it('reports vocabulary words with the spelling the user gave', async () => {
    const output = await recognize('coqui-stt/LDC93S1.wav', ['GREASY', 'Wash Water', 'dark suit']);
    const words = output.words.map((word) => word.word);
    expect(words).toContain('GREASY');
    expect(words).toEqual(expect.arrayContaining(['Wash', 'Water']));
  });

  it('gives words the dictionary lacks a pronunciation so they can be recognised', async () => {
    const output = await recognize('pocketsphinx/goforward.wav', ['Gofarrwood']);
    expect(output.words.length).toBeGreaterThan(0);
  });

  it('reports English for auto and rejects other languages', async () => {
    const pcm = await decodeToPcm(testAudio('pocketsphinx/goforward.wav'));
    const chunk = { samples: pcm.samples, offset: 0 };
    const auto = await recognizer.recognize(chunk, { language: 'auto', vocabulary: [], signal });
    expect(auto.detectedLanguage).toBe('en');
    await expect(
      recognizer.recognize(chunk, { language: 'de', vocabulary: [], signal }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_LANGUAGE',
    });
  });
});
