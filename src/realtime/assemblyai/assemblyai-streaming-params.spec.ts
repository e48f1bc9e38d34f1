import { AssemblyAiStreamingParamError, readAssemblyAiStreamingParams } from './assemblyai-streaming-params';

const read = (query: string) => readAssemblyAiStreamingParams(new URLSearchParams(query));
const refusal = (query: string): { param: string | null; closeCode: number } | null => {
  try {
    read(query);
    return null;
  } catch (error) {
    if (!(error instanceof AssemblyAiStreamingParamError)) throw error;
    return { param: error.param, closeCode: error.closeCode };
  }
};

describe('readAssemblyAiStreamingParams', () => {
  it('defaults: pcm_s16le at 16 kHz, Universal-Streaming English on premium, no formatting, the default turn silence', () => {
    const { config, options } = read('');
    expect(config).toMatchObject({
      format: { type: 'audio/pcm', rate: 16000 },
      tier: 'premium',
      modelName: 'universal-streaming-english',
      language: null,
      vocabulary: [],
      turnDetection: { silenceMs: 500 },
    });
    expect(options).toEqual({ formatTurns: false });
  });

  it('reads the SDK’s parameters: encoding, sample rate, model, language, keyterms, turn silence, format_turns', () => {
    const { config, options } = read(
      'sample_rate=8000&encoding=pcm_mulaw&speech_model=whisper-rt&language_code=de-DE&keyterms_prompt=%5B%22Kubernetes%22%2C%22 %22%5D&min_turn_silence=50&format_turns=true&token=ignored&end_of_turn_confidence_threshold=0.7',
    );
    expect(config).toMatchObject({
      format: { type: 'audio/pcmu', rate: 8000 },
      tier: 'premium_jade',
      modelName: 'whisper-rt',
      language: 'de',
      vocabulary: ['Kubernetes'],
      turnDetection: { silenceMs: 100 },
    });
    expect(options.formatTurns).toBe(true);
    expect(read('sample_rate=24000').config.format).toEqual({ type: 'audio/pcm', rate: 24000 });
    expect(read('language=multi').config.language).toBeNull();
    expect(read('speech_model=standard').config.tier).toBe('standard');
  });

  it('refuses what it cannot take, naming the parameter: 4000 for the audio format, 3006 for the rest', () => {
    expect(refusal('sample_rate=44100')).toEqual({ param: 'sample_rate', closeCode: 4000 });
    expect(refusal('encoding=opus')).toEqual({ param: 'encoding', closeCode: 4000 });
    expect(refusal('encoding=pcm_mulaw&sample_rate=16000')).toEqual({
      param: 'sample_rate',
      closeCode: 4000,
    });
    expect(refusal('speech_model=u3-rt-pro')).toEqual({ param: 'speech_model', closeCode: 3006 });
    expect(refusal('language_code=xx')).toEqual({ param: 'language_code', closeCode: 3006 });
    expect(refusal('keyterms_prompt=Kubernetes')).toEqual({ param: 'keyterms_prompt', closeCode: 3006 });
    expect(refusal(`keyterms_prompt=${encodeURIComponent(JSON.stringify(Array(101).fill('a')))}`)).toEqual({
      param: 'keyterms_prompt',
      closeCode: 3006,
    });
    expect(refusal('min_turn_silence=-1')).toEqual({ param: 'min_turn_silence', closeCode: 3006 });
    expect(refusal('format_turns=yes')).toEqual({ param: 'format_turns', closeCode: 3006 });
    for (const name of [
      'speaker_labels',
      'language_detection',
      'webhook_url',
      'redact_pii',
      'filter_profanity',
      'llm_gateway',
    ]) {
      expect(refusal(`${name}=true`)).toEqual({ param: name, closeCode: 3006 });
      expect(refusal(`${name}=false`)).toBeNull();
    }
  });
});
