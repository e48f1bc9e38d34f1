import type { TranscriptWord } from '../engine/engine.types';
import type { Transcription } from '../transcriptions/transcription.entity';
import {
  paragraphsOf,
  sentencesOf,
  toAssemblyAiTranscript,
  toListItem,
  wordSearchOf,
} from './assemblyai-transcript.view';

const word = (text: string, start: number, speaker: string | null, confidence?: number): TranscriptWord => ({
  word: text,
  start,
  end: start + 0.4,
  speaker,
  ...(confidence !== undefined ? { confidence } : {}),
});

const WORDS = [
  word('Hello,', 0, 'SPEAKER_01', 0.9),
  word('there.', 0.5, 'SPEAKER_01', 0.7),
  word('Go', 1.2, 'SPEAKER_00'),
  word('forward!', 1.6, 'SPEAKER_00', 0.5),
];

function job(overrides: Partial<Transcription> = {}): Transcription {
  return {
    id: '6f1c1b7e-2d7a-4f55-9a4e-0c9f3b1d2e10',
    status: 'completed',
    duration: 2.6,
    channels: null,
    language: 'en',
    detectedLanguage: null,
    errorMessage: null,
    originalFileName: 'call.wav',
    createdOn: new Date('2026-11-29T05:00:00.123Z'),
    completedAt: new Date('2026-11-29T05:00:03Z'),
    transcriptDeletedAt: null,
    resultJson: { words: WORDS },
    compatRequest: {
      api: 'assemblyai',
      audioUrl: 'https://example.com/call.wav',
      options: { speaker_labels: true, punctuate: true, format_text: true },
    },
    ...overrides,
  } as Transcription;
}

describe('AssemblyAI transcript view', () => {
  it('words in ms, speakers A, B in order of appearance, confidence 0 where none; utterances by speaker', () => {
    const transcript = toAssemblyAiTranscript(job());
    expect(transcript).toMatchObject({
      status: 'completed',
      audio_url: 'https://example.com/call.wav',
      text: 'Hello, there. Go forward!',
      audio_duration: 3,
      speaker_labels: true,
      language_code: 'en',
    });
    expect(transcript.words?.map((w) => [w.text, w.start, w.end, w.speaker, w.confidence])).toEqual([
      ['Hello,', 0, 400, 'A', 0.9],
      ['there.', 500, 900, 'A', 0.7],
      ['Go', 1200, 1600, 'B', 0],
      ['forward!', 1600, 2000, 'B', 0.5],
    ]);
    expect(transcript.utterances?.map((u) => [u.speaker, u.text])).toEqual([
      ['A', 'Hello, there.'],
      ['B', 'Go forward!'],
    ]);
  });

  it('as asked: no punctuation, lower case, no speakers; nothing of the text before completion; the error when failed', () => {
    const plain = toAssemblyAiTranscript(
      job({
        compatRequest: {
          api: 'assemblyai',
          audioUrl: 'u',
          options: { punctuate: false, format_text: false },
        },
      }),
    );
    expect(plain.text).toBe('hello there go forward');
    expect(plain.words?.every((w) => w.speaker === null)).toBe(true);
    expect(plain.utterances).toBeNull();
    expect(toAssemblyAiTranscript(job({ status: 'processing' }))).toMatchObject({
      status: 'processing',
      text: null,
      words: null,
    });
    expect(toAssemblyAiTranscript(job({ status: 'failed', errorMessage: 'no audio' }))).toMatchObject({
      status: 'error',
      error: 'no audio',
    });
    // A job made by another route: AssemblyAI's defaults, its file name as the URL.
    expect(toAssemblyAiTranscript(job({ compatRequest: null }))).toMatchObject({
      audio_url: 'file://call.wav',
      speaker_labels: false,
    });
  });

  it('sentences, paragraphs (no speaker), word search, list item', () => {
    expect(sentencesOf(job()).sentences.map((s) => [s.text, s.speaker])).toEqual([
      ['Hello, there.', 'A'],
      ['Go forward!', 'B'],
    ]);
    const paragraphs = paragraphsOf(job()).paragraphs;
    expect(paragraphs.map((p) => p.text)).toEqual(['Hello, there.', 'Go forward!']);
    expect(paragraphs[0]).not.toHaveProperty('speaker');
    expect(wordSearchOf(job(), ['forward', 'hello there', 'nope'])).toMatchObject({
      total_count: 2,
      matches: [
        { text: 'forward', count: 1, timestamps: [[1600, 2000]], indexes: [3] },
        { text: 'hello there', count: 1, timestamps: [[0, 900]], indexes: [0] },
        { text: 'nope', count: 0, timestamps: [], indexes: [] },
      ],
    });
    expect(toListItem(job(), 'https://stt.example.com')).toEqual({
      id: job().id,
      resource_url: `https://stt.example.com/v2/transcript/${job().id}`,
      status: 'completed',
      created: '2026-11-29T05:00:00.123',
      completed: '2026-11-29T05:00:03.000',
      audio_url: 'https://example.com/call.wav',
      error: null,
    });
  });
});
