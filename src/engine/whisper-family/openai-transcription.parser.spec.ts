import { errorMessageOf, parseTranscriptionResponse } from './openai-transcription.parser';

describe('parseTranscriptionResponse', () => {
  it('merges whisper.cpp server tokens inside segments', () => {
    const out = parseTranscriptionResponse(
      {
        language: 'english',
        segments: [
          {
            start: 0,
            end: 2,
            text: ' Asked not',
            words: [
              { word: ' Ask', start: 0.1, end: 0.3, probability: 0.9 },
              { word: 'ed', start: 0.3, end: 0.5, probability: 0.7 },
              { word: ' not', start: 0.6, end: 0.9, probability: 0.9 },
            ],
          },
        ],
      },
      2,
    );
    expect(out).toEqual({
      language: 'en',
      words: [
        // confidence: the mean of the word's token probabilities (the word's confidence in the API)
        { word: 'Asked', start: 0.1, end: 0.5, confidence: 0.8 },
        { word: 'not', start: 0.6, end: 0.9, confidence: 0.9 },
      ],
    });
  });

  it('takes segment word lists without leading spaces one entry per word', () => {
    const out = parseTranscriptionResponse(
      {
        language: 'fr',
        segments: [
          {
            start: 0,
            end: 1,
            text: 'oui non',
            words: [
              { word: 'oui', start: 0, end: 0.4 },
              { word: 'non', start: 0.5, end: 0.9 },
            ],
          },
        ],
      },
      1,
    );
    expect(out.words.map((w) => w.word)).toEqual(['oui', 'non']);
    expect(out.language).toBe('fr');
  });

  it('spreads bare text over the chunk', () => {
    expect(parseTranscriptionResponse({ text: 'ab cd' }, 2)).toEqual({
      language: null,
      words: [
        { word: 'ab', start: 0, end: 1 },
        { word: 'cd', start: 1, end: 2 },
      ],
    });
  });

  it('rejects answers with nothing to read', () => {
    expect(() => parseTranscriptionResponse([], 1)).toThrow(/not a JSON object/);
    expect(() => parseTranscriptionResponse({ foo: 1 }, 1)).toThrow(/neither words, segments nor text/);
  });
});

describe('errorMessageOf', () => {
  it('finds the message in the usual error shapes', () => {
    expect(
      errorMessageOf('{"error":{"message":"Invalid file format.","type":"invalid_request_error"}}'),
    ).toBe('Invalid file format.');
    expect(errorMessageOf('{"error":"busy"}')).toBe('busy');
    expect(errorMessageOf('{"detail":"Not Found"}')).toBe('Not Found');
    expect(errorMessageOf('{"detail":[{"loc":["body","file"],"msg":"field required"}]}')).toMatch(
      /field required/,
    );
    expect(errorMessageOf('Invalid request')).toBe('Invalid request');
    expect(errorMessageOf('')).toBe('(empty answer)');
    expect(errorMessageOf('x'.repeat(600))).toHaveLength(501);
  });
});
