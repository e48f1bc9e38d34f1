import { heardSpeech, LIVE_SAMPLE_RATE, LiveTranscriber, type LiveRecognizer } from './live-transcriber';

function fakeRecognizer(): LiveRecognizer & { fed: number } {
  return {
    fed: 0,
    startUtterance() {},
    feed(samples) {
      this.fed += samples.length;
    },
    partialText() {
      return `heard ${this.fed}`;
    },
    endUtterance: () => [],
    abandonUtterance() {},
  };
}

describe('LiveTranscriber', () => {
  it('reports partials on a fixed grid of the utterance audio, however the audio is cut into appends', () => {
    const transcriber = new LiveTranscriber(
      fakeRecognizer(),
      { turnDetection: null, vocabulary: [], partialIntervalMs: 400, maxUtteranceSeconds: 25 },
      () => {
        throw new Error('no VAD without turn detection');
      },
    );
    const piece = new Int16Array((LIVE_SAMPLE_RATE * 300) / 1000);
    const partials: string[] = [];
    for (let index = 0; index < 8; index++) {
      for (const event of transcriber.accept(piece.slice()))
        if (event.kind === 'partial') partials.push(event.text);
    }
    // 2.4 s in 300 ms appends: one partial per 400 ms of audio (counted from the last partial, the 300 ms
    // appends would give one per 600 ms), each with the append that crossed the mark.
    expect(partials).toEqual(
      [600, 900, 1200, 1800, 2100, 2400].map((ms) => `heard ${(ms * LIVE_SAMPLE_RATE) / 1000}`),
    );
  });
});

describe('heardSpeech (what keeps a session from being idle)', () => {
  const word = { word: 'forward', start: 0.1, end: 0.5, confidence: 0.9 };

  it('with the server VAD: every event of an utterance, not an utterance without words', () => {
    expect(heardSpeech({ kind: 'speech-started', startMs: 0 }, true)).toBe(true);
    expect(heardSpeech({ kind: 'partial', text: '' }, true)).toBe(true);
    expect(heardSpeech({ kind: 'speech-stopped', endMs: 900 }, true)).toBe(true);
    expect(heardSpeech({ kind: 'utterance', startMs: 0, endMs: 900, words: [word] }, true)).toBe(true);
    expect(heardSpeech({ kind: 'utterance', startMs: 900, endMs: 900, words: [] }, true)).toBe(false);
  });

  it('with turn_detection null (the decoder hears all audio): only recognised words', () => {
    expect(heardSpeech({ kind: 'partial', text: '' }, false)).toBe(false);
    expect(heardSpeech({ kind: 'partial', text: ' ' }, false)).toBe(false);
    expect(heardSpeech({ kind: 'partial', text: 'go forward' }, false)).toBe(true);
    expect(heardSpeech({ kind: 'utterance', startMs: 0, endMs: 900, words: [] }, false)).toBe(false);
    expect(heardSpeech({ kind: 'utterance', startMs: 0, endMs: 900, words: [word] }, false)).toBe(true);
  });
});
