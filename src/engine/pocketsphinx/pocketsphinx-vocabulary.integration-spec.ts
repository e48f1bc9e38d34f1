import { testAudio } from '../../../test/support/shared-paths';
import { decodeToPcm } from '../audio/ffmpeg-decoder';
import { defaultEngineSettings } from '../engine-settings';
import { MAX_VOCABULARY_WORD_LENGTH } from '../../vocabularies/vocabulary-word';
import { PocketSphinxRecognizer } from './pocketsphinx-recognizer';
import { dictionaryWords, randomWords } from './sample-vocabularies';

/**
 * Full 500-word vocabularies on real speech. Words added to libsphinxbase's trie language model used to crash
 * the process (SIGSEGV in lm_trie_score) once the search hypothesised them; pocketsphinx-decoder.ts keeps them in
 * a model of their own. A native crash cannot be caught: it ends the jest worker (or jest itself with
 * --runInBand, exit code 139) and the run fails loudly, which is what the code before the fix did here.
 */
const CLIPS = [
  'coqui-stt/LDC93S1.wav',
  'pocketsphinx/goforward.wav',
  'wenet/librispeech-1995-1837-0001.wav',
  'speechbrain/LJ050-0131.wav',
];
const WORDS = 500;
/** Model load, vocabulary and four decodes take a few seconds alone and much longer on a busy machine. */
const TIMEOUT_MS = 120_000;
const settings = defaultEngineSettings().pocketsphinx;

describe('PocketSphinx with a 500-word vocabulary', () => {
  const signal = new AbortController().signal;
  let recognizer: PocketSphinxRecognizer | null = null;
  afterEach(() => recognizer?.close());

  async function decodeAll(vocabulary: string[]): Promise<string[]> {
    recognizer = new PocketSphinxRecognizer(settings);
    const texts: string[] = [];
    for (const clip of CLIPS) {
      const pcm = await decodeToPcm(testAudio(clip));
      const output = await recognizer.recognize(
        { samples: pcm.samples, offset: 0 },
        { language: 'en', vocabulary, signal },
      );
      texts.push(output.words.map((word) => word.word).join(' '));
    }
    return texts;
  }

  it(
    'decodes every clip with 500 random words of 4–10 letters',
    async () => {
      const texts = await decodeAll(randomWords(WORDS, 4, 10, 1));
      for (const text of texts) expect(text.length).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );

  it(
    `decodes every clip with 500 random words of ${MAX_VOCABULARY_WORD_LENGTH} letters`,
    async () => {
      const texts = await decodeAll(
        randomWords(WORDS, MAX_VOCABULARY_WORD_LENGTH, MAX_VOCABULARY_WORD_LENGTH, 2),
      );
      for (const text of texts) expect(text.length).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );

  it(
    'decodes every clip with 500 dictionary words and still boosts the ones spoken',
    async () => {
      // 497 dictionary words plus three phrases from LDC93S1 that the generic model gets wrong without them.
      const vocabulary = [
        ...dictionaryWords(settings.dictionaryPath, WORDS - 3),
        'GREASY',
        'Wash Water',
        'dark suit',
      ];
      const texts = await decodeAll(vocabulary);
      for (const text of texts) expect(text.length).toBeGreaterThan(0);
      expect(texts[0].split(' ')).toContain('GREASY');
    },
    TIMEOUT_MS,
  );
});
