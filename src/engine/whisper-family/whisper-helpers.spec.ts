import { LANGUAGE_CODES } from '../../languages/languages';
import { buildInitialPrompt, buildVocabularyPrompt } from './initial-prompt.builder';
import { encodeWav16kMono } from './wav.encoder';
import { toWhisperEngineLanguage, toWhisperLanguageCode, WHISPER_LANGUAGES } from './whisper-language.codes';
import { parseTranscriptionResponse } from './openai-transcription.parser';
import { mergeTokensIntoWords, spreadSegmentOverWords, toFileTime } from './whisper-token.merger';

describe('Whisper language codes', () => {
  it('cover exactly the languages the service offers', () => {
    expect([...WHISPER_LANGUAGES.keys()].sort()).toEqual([...LANGUAGE_CODES].sort());
  });

  it('read names, codes, aliases and BCP 47 tags', () => {
    expect(toWhisperLanguageCode('english')).toBe('en');
    expect(toWhisperLanguageCode('English')).toBe('en');
    expect(toWhisperLanguageCode('german')).toBe('de');
    expect(toWhisperLanguageCode('haitian creole')).toBe('ht');
    expect(toWhisperLanguageCode('castilian')).toBe('es');
    expect(toWhisperLanguageCode('en')).toBe('en');
    expect(toWhisperLanguageCode('pt-BR')).toBe('pt');
    expect(toWhisperLanguageCode('haw')).toBe('haw');
    expect(toWhisperLanguageCode('jw')).toBe('jv');
    expect(toWhisperLanguageCode('klingon')).toBeNull();
    expect(toWhisperLanguageCode(undefined)).toBeNull();
    expect(toWhisperLanguageCode('')).toBeNull();
    expect(toWhisperEngineLanguage('jv')).toBe('jw');
    expect(toWhisperEngineLanguage('de')).toBe('de');
  });
});

describe('buildVocabularyPrompt', () => {
  it('joins with commas, tidies whitespace and skips blanks', () => {
    expect(buildVocabularyPrompt(['Kubernetes', '  Grafana  Loki ', '', 'PostgreSQL'])).toBe(
      'Kubernetes, Grafana Loki, PostgreSQL',
    );
    expect(buildVocabularyPrompt([])).toBe('');
  });

  it('keeps whole words within the character budget', () => {
    expect(buildVocabularyPrompt(['alpha', 'beta', 'gamma'], 12)).toBe('alpha, beta');
    const many = Array.from({ length: 500 }, (_, i) => `term${i}`);
    expect(buildVocabularyPrompt(many).length).toBeLessThanOrEqual(800);
  });
});

describe('buildInitialPrompt', () => {
  it('is the vocabulary alone without a caller prompt, and the caller prompt alone without vocabulary', () => {
    expect(buildInitialPrompt(['Kubernetes', 'gRPC'], null)).toBe('Kubernetes, gRPC');
    expect(buildInitialPrompt(['Kubernetes'], '   ')).toBe('Kubernetes');
    expect(buildInitialPrompt([], ' Quarterly  review. ')).toBe('Quarterly review.');
    expect(buildInitialPrompt([], null)).toBe('');
  });

  it('puts the caller prompt last, closest to the audio, after the vocabulary', () => {
    expect(buildInitialPrompt(['Kubernetes', 'gRPC'], 'Quarterly review.')).toBe(
      'Kubernetes, gRPC. Quarterly review.',
    );
  });

  it('gives the caller prompt the budget first; vocabulary words fill what is left, whole', () => {
    expect(buildInitialPrompt(['alpha', 'beta', 'gamma'], 'one two', 21)).toBe('alpha, beta. one two');
    expect(buildInitialPrompt(['alpha', 'beta'], 'one two three', 15)).toBe('one two three');
  });

  it('keeps the end of a caller prompt longer than the budget, from a word boundary', () => {
    expect(buildInitialPrompt(['alpha'], 'first second third fourth', 14)).toBe('third fourth');
    expect(buildInitialPrompt([], 'x'.repeat(50), 10)).toBe('x'.repeat(10));
    const long = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    const prompt = buildInitialPrompt(['alpha'], long);
    expect(prompt.length).toBeLessThanOrEqual(800);
    expect(prompt.endsWith(' w399')).toBe(true);
    expect(prompt).not.toContain('alpha');
  });
});

describe('mergeTokensIntoWords', () => {
  it('starts a word at a leading space and extends it with the pieces that follow', () => {
    expect(
      mergeTokensIntoWords([
        { text: 'Ask', start: 0, end: 0.2 },
        { text: 'ed', start: 0.2, end: 0.3 },
        { text: ' not', start: 0.4, end: 0.6 },
        { text: '[_TT_30]', start: 0.6, end: 0.6 },
        { text: '.', start: 0.6, end: 0.65 },
        { text: ' ', start: 0.7, end: 0.7 },
      ]),
    ).toEqual([
      { word: 'Asked', start: 0, end: 0.3 },
      { word: 'not.', start: 0.4, end: 0.65 },
    ]);
  });

  it('gives a word the mean probability of its tokens, and none when a token has none', () => {
    expect(
      mergeTokensIntoWords([
        { text: ' Ask', start: 0, end: 0.2, probability: 0.9 },
        { text: 'ed', start: 0.2, end: 0.3, probability: 0.5 },
        { text: ' not', start: 0.4, end: 0.6, probability: 0.25 },
        { text: '.', start: 0.6, end: 0.65 },
      ]),
    ).toEqual([
      { word: 'Asked', start: 0, end: 0.3, confidence: 0.7 },
      { word: 'not.', start: 0.4, end: 0.65 },
    ]);
  });
});

describe('word confidence from whisper.cpp verbose_json', () => {
  it('reads token probabilities and keeps them through the move to file time', () => {
    const parsed = parseTranscriptionResponse(
      {
        language: 'en',
        segments: [
          {
            words: [
              { word: ' And', start: 0, end: 0.3, probability: 0.98 },
              { word: ' so', start: 0.3, end: 0.5, probability: 0.4 },
              { word: ',', start: 0.5, end: 0.55, probability: 0.6 },
            ],
          },
        ],
      },
      2,
    );
    expect(toFileTime(parsed.words, 10, 2)).toEqual([
      { word: 'And', start: 10, end: 10.3, confidence: 0.98 },
      { word: 'so,', start: 10.3, end: 10.55, confidence: 0.5 },
    ]);
  });

  it('has no confidence for servers that send no probabilities (OpenAI words)', () => {
    const parsed = parseTranscriptionResponse({ words: [{ word: 'hi', start: 0, end: 0.2 }] }, 1);
    expect(parsed.words).toEqual([{ word: 'hi', start: 0, end: 0.2 }]);
    expect('confidence' in parsed.words[0]).toBe(false);
  });
});

describe('spreadSegmentOverWords', () => {
  it('shares the span by word length', () => {
    expect(spreadSegmentOverWords(' ab abcd ', 1, 4)).toEqual([
      { word: 'ab', start: 1, end: 2 },
      { word: 'abcd', start: 2, end: 4 },
    ]);
    expect(spreadSegmentOverWords('', 0, 1)).toEqual([]);
  });
});

describe('encodeWav16kMono', () => {
  it('writes a 16-bit PCM mono header and clipped samples', () => {
    const wav = encodeWav16kMono(new Float32Array([0, 1, -1, 2, -2, 0.5, Number.NaN]));
    expect(wav.length).toBe(44 + 7 * 2);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(36 + 14);
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(wav.readUInt16LE(20)).toBe(1);
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.readUInt32LE(28)).toBe(32000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(14);
    const samples = Array.from({ length: 7 }, (_, i) => wav.readInt16LE(44 + i * 2));
    expect(samples).toEqual([0, 32767, -32768, 32767, -32768, 16384, 0]);
  });
});
