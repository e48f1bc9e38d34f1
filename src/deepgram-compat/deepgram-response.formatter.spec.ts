import type { TranscriptWord } from '../engine/engine.types';
import {
  bareWord,
  formatListenResponse,
  type ListenAnswerOptions,
  type ListenedJob,
} from './deepgram-response.formatter';

const JOB_ID = '6f1c1b7e-2d7a-4f55-9a4e-0c9f3b1d2e10';

const word = (text: string, start: number, speaker: string | null, confidence?: number): TranscriptWord => ({
  word: text,
  start,
  end: start + 0.4,
  speaker,
  ...(confidence !== undefined ? { confidence } : {}),
});

const job = (words: TranscriptWord[], channels: number | null = null): ListenedJob => ({
  id: JOB_ID,
  model: 'premium',
  createdOn: new Date('2026-11-29T05:00:00Z'),
  duration: 6,
  channels,
  detectedLanguage: 'en',
  language: 'auto',
  words,
});

const asked = (overrides: Partial<ListenAnswerOptions> = {}): ListenAnswerOptions => ({
  model: 'nova-2',
  punctuate: false,
  diarize: false,
  utterances: false,
  utteranceSplit: 0.8,
  paragraphs: false,
  detectLanguage: false,
  ...overrides,
});

const TWO_SPEAKERS = [
  word('Hello,', 0, 'SPEAKER_01', 0.9),
  word('there.', 0.5, 'SPEAKER_01', 0.7),
  word('Hi!', 1.2, 'SPEAKER_00', 0.8),
  word('Bye.', 3, 'SPEAKER_00', 0.6),
];

describe('formatListenResponse', () => {
  it('words bare and lower-case, punctuated only when asked; speakers from 0 in order of appearance', () => {
    const plain = formatListenResponse(job(TWO_SPEAKERS), asked(), 'ab');
    const [alternative] = plain.results.channels[0].alternatives;
    expect(alternative.transcript).toBe('hello there hi bye');
    expect(alternative.words[0]).toEqual({ word: 'hello', start: 0, end: 0.4, confidence: 0.9 });
    expect(alternative.confidence).toBe(0.75);

    const rich = formatListenResponse(job(TWO_SPEAKERS), asked({ punctuate: true, diarize: true }), 'ab');
    const words = rich.results.channels[0].alternatives[0].words;
    expect(words.map((w) => [w.punctuated_word, w.speaker])).toEqual([
      ['Hello,', 0],
      ['there.', 0],
      ['Hi!', 1],
      ['Bye.', 1],
    ]);
    expect(rich.results.channels[0].alternatives[0].transcript).toBe('Hello, there. Hi! Bye.');
    expect(rich.metadata).toEqual({
      transaction_key: 'deprecated',
      request_id: JOB_ID,
      sha256: 'ab',
      created: '2026-11-29T05:00:00.000Z',
      duration: 6,
      channels: 1,
      models: ['nova-2'],
      model_info: { 'nova-2': { name: 'nova-2', version: 'premium', arch: 'open-transcription-service' } },
    });
  });

  it('leaves confidence out where the recogniser gave none (never a made-up value)', () => {
    const answer = formatListenResponse(job([word('go', 0, null), word('on', 0.5, null)]), asked(), '');
    const [alternative] = answer.results.channels[0].alternatives;
    expect(alternative).not.toHaveProperty('confidence');
    expect(alternative.words[0]).not.toHaveProperty('confidence');
  });

  it('utterances: runs of one speaker cut at utt_split seconds of silence, with stable ids', () => {
    const once = formatListenResponse(job(TWO_SPEAKERS), asked({ utterances: true, diarize: true }), '');
    expect(once.results.utterances?.map((u) => [u.transcript, u.speaker, u.channel])).toEqual([
      ['hello there', 0, 0],
      ['hi', 1, 0],
      ['bye', 1, 0],
    ]);
    const again = formatListenResponse(job(TWO_SPEAKERS), asked({ utterances: true }), '');
    expect(again.results.utterances?.map((u) => u.id)).toEqual(once.results.utterances?.map((u) => u.id));
    const longer = formatListenResponse(
      job(TWO_SPEAKERS),
      asked({ utterances: true, utteranceSplit: 2 }),
      '',
    );
    expect(longer.results.utterances?.map((u) => u.transcript)).toEqual(['hello there', 'hi bye']);
  });

  it('paragraphs split into sentences; every word in exactly one paragraph', () => {
    const answer = formatListenResponse(
      job(TWO_SPEAKERS),
      asked({ paragraphs: true, punctuate: true, diarize: true }),
      '',
    );
    const paragraphs = answer.results.channels[0].alternatives[0].paragraphs;
    expect(
      paragraphs?.paragraphs.map((p) => [p.speaker, p.num_words, p.sentences.map((s) => s.text)]),
    ).toEqual([
      [0, 2, ['Hello, there.']],
      [1, 2, ['Hi!', 'Bye.']],
    ]);
    expect(paragraphs?.transcript).toBe('\nSpeaker 0: Hello, there.\n\nSpeaker 1: Hi! Bye.\n');
  });

  it('multichannel: one channel entry per channel, words by their CHANNEL_n label, no speakers', () => {
    const words = [
      word('left', 0, 'CHANNEL_1'),
      word('right', 0.2, 'CHANNEL_2'),
      word('again', 1, 'CHANNEL_1'),
    ];
    const answer = formatListenResponse(job(words, 2), asked({ diarize: true, utterances: true }), '');
    expect(answer.metadata.channels).toBe(2);
    expect(answer.results.channels.map((c) => c.alternatives[0].transcript)).toEqual(['left again', 'right']);
    expect(answer.results.channels[0].alternatives[0].words[0]).not.toHaveProperty('speaker');
    expect(answer.results.utterances?.map((u) => [u.channel, u.transcript])).toEqual([
      [0, 'left again'],
      [1, 'right'],
    ]);
  });

  it('detected_language only when asked', () => {
    expect(formatListenResponse(job(TWO_SPEAKERS), asked(), '').results.channels[0]).not.toHaveProperty(
      'detected_language',
    );
    expect(
      formatListenResponse(job(TWO_SPEAKERS), asked({ detectLanguage: true }), '').results.channels[0],
    ).toMatchObject({ detected_language: 'en' });
  });

  it('bareWord strips edge punctuation only', () => {
    expect(bareWord('"Don’t!"')).toBe('don’t');
    expect(bareWord('e-mail,')).toBe('e-mail');
    expect(bareWord('...')).toBe('...');
  });
});
