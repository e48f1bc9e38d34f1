import type { TranscriptWord } from '../engine/engine.types';
import { compressionRatio, formatVerboseJson } from './openai-response.formatter';

const word = (text: string, start: number, end: number, confidence?: number): TranscriptWord => ({
  word: text,
  start,
  end,
  speaker: null,
  ...(confidence !== undefined ? { confidence } : {}),
});

const transcript = {
  text: 'Go forward. Then stop.',
  language: 'en',
  duration: 9.5,
  words: [
    word('Go', 0.1, 0.3, 0.5),
    word('forward.', 0.3, 0.9, 0.5),
    // A pause longer than two seconds starts a new segment.
    word('Then', 4, 4.2),
    word(' ', 4.2, 4.2),
    word('stop.', 4.2, 4.8),
  ],
};

describe('formatVerboseJson', () => {
  it('writes OpenAI’s verbose_json: language name, duration, segments with every field, words on request', () => {
    const answer = formatVerboseJson(transcript, { words: true, segments: true });
    expect(answer).toMatchObject({
      task: 'transcribe',
      language: 'english',
      duration: 9.5,
      text: transcript.text,
    });
    expect(answer.segments).toEqual([
      {
        id: 0,
        seek: 10,
        start: 0.1,
        end: 0.9,
        text: ' Go forward.',
        tokens: [],
        temperature: 0,
        avg_logprob: Math.log(0.5),
        compression_ratio: compressionRatio('Go forward.'),
        no_speech_prob: 0,
      },
      expect.objectContaining({ id: 1, seek: 400, start: 4, end: 4.8, text: ' Then stop.', avg_logprob: 0 }),
    ]);
    expect(answer.words).toEqual([
      { word: 'Go', start: 0.1, end: 0.3 },
      { word: 'forward.', start: 0.3, end: 0.9 },
      { word: 'Then', start: 4, end: 4.2 },
      { word: 'stop.', start: 4.2, end: 4.8 },
    ]);
  });

  it('leaves out what was not asked for, and falls back for an unknown language and duration', () => {
    const answer = formatVerboseJson(
      { ...transcript, language: null, duration: null },
      { words: false, segments: false },
    );
    expect(answer).toEqual({ task: 'transcribe', language: 'unknown', duration: 4.8, text: transcript.text });
  });
});
