import { ProblemException } from '../../common/problem/problem.exception';
import { readDeepgramLiveParams } from './deepgram-live-params';

const read = (query: string) => readDeepgramLiveParams(new URLSearchParams(query));
const refusal = (query: string): string => {
  try {
    read(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    return (error as ProblemException).detail;
  }
  throw new Error(`accepted: ${query}`);
};

describe('readDeepgramLiveParams', () => {
  it('maps the handshake to the realtime session: format, tier, language, vocabulary, endpointing', () => {
    const { config, options } = read(
      'model=nova-2&encoding=linear16&sample_rate=16000&language=en-US&keywords=Zurich:2&keyterm=speech%20to%20text' +
        '&interim_results=true&smart_format=true&vad_events=true&utterance_end_ms=1000&endpointing=300',
    );
    expect(config).toMatchObject({
      modelName: 'nova-2',
      tier: 'premium',
      format: { type: 'audio/pcm', rate: 16000 },
      language: 'en',
      vocabulary: ['Zurich', 'speech to text'],
      turnDetection: { silenceMs: 300 },
    });
    expect(options).toEqual({
      model: 'nova-2',
      interimResults: true,
      punctuate: true,
      vadEvents: true,
      utteranceEnd: true,
    });
    expect(read('encoding=mulaw').config.format).toEqual({ type: 'audio/pcmu', rate: 8000 });
    expect(read('encoding=alaw&sample_rate=8000').config.format).toEqual({ type: 'audio/pcma', rate: 8000 });
    expect(read('encoding=linear16&sample_rate=24000&endpointing=false').config.turnDetection).toBeNull();
    expect(read('encoding=linear16&sample_rate=24000&endpointing=10').config.turnDetection?.silenceMs).toBe(
      100,
    );
    expect(read('encoding=linear16&sample_rate=24000').options).toMatchObject({
      model: 'base-general',
      interimResults: false,
      punctuate: false,
    });
  });

  it('refuses what it cannot serve, naming it', () => {
    expect(refusal('')).toMatch(/encoding is required/);
    expect(refusal('encoding=opus')).toMatch(/encoding must be linear16, mulaw or alaw/);
    expect(refusal('encoding=linear16&sample_rate=44100')).toMatch(/sample_rate/);
    expect(refusal('encoding=linear16')).toMatch(/sample_rate/);
    expect(refusal('encoding=mulaw&channels=2')).toMatch(/channels must be 1/);
    expect(refusal('encoding=mulaw&multichannel=true')).toMatch(/multichannel/);
    expect(refusal('encoding=mulaw&redact=pci')).toMatch(/redact/);
    expect(refusal('encoding=mulaw&model=aura')).toMatch(/No such model/);
    expect(refusal('encoding=mulaw&language=xx')).toMatch(/language/);
    expect(refusal('encoding=mulaw&interim_results=maybe')).toMatch(/interim_results must be true or false/);
    expect(refusal('encoding=mulaw&utterance_end_ms=5')).toMatch(/utterance_end_ms/);
    expect(refusal('encoding=mulaw&endpointing=soon')).toMatch(/endpointing/);
  });
});
