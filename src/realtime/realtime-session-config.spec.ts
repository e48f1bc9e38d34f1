import { applySessionUpdate, initialSessionConfig, tierOfModel } from './realtime-session-config';

const PARAM = 'session.audio.input.transcription';

describe('realtime session configuration', () => {
  const initial = initialSessionConfig('gpt-4o-transcribe');

  it('maps model names to tiers: tiers themselves, whisper-1 and gpt-… names to standard', () => {
    expect(tierOfModel('premium', 'model')).toBe('premium');
    expect(tierOfModel('whisper-1', 'model')).toBe('standard');
    expect(initial.tier).toBe('standard');
    expect(() => tierOfModel('nova-3', 'model')).toThrow(
      expect.objectContaining({ code: 'model_not_found' }),
    );
  });

  it('changes only the fields present, as OpenAI session.update does', () => {
    const next = applySessionUpdate(initial, {
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcmu' },
          transcription: { model: 'premium', language: 'en', vocabulary: ['Kubernetes'] },
          turn_detection: { type: 'server_vad', silence_duration_ms: 800 },
        },
      },
      metadata: { call: '42' },
    });
    expect(next).toMatchObject({
      format: { type: 'audio/pcmu', rate: 8000 },
      tier: 'premium',
      modelName: 'premium',
      language: 'en',
      vocabulary: ['Kubernetes'],
      turnDetection: { threshold: 0.5, silenceMs: 800, prefixPaddingMs: 300 },
      metadata: { call: '42' },
    });
    const off = applySessionUpdate(next, { audio: { input: { turn_detection: null } } });
    expect(off).toEqual({ ...next, turnDetection: null });
  });

  it.each([
    [{ type: 'realtime' }, 'session.type'],
    [
      { audio: { input: { turn_detection: { type: 'semantic_vad' } } } },
      'session.audio.input.turn_detection.type',
    ],
    [
      { audio: { input: { turn_detection: { type: 'server_vad', threshold: 2 } } } },
      'session.audio.input.turn_detection.threshold',
    ],
    [{ audio: { input: { transcription: { model: 'nova-3' } } } }, `${PARAM}.model`],
    [{ audio: { input: { transcription: { vocabulary: 'words' } } } }, `${PARAM}.vocabulary`],
    [{ audio: { input: { transcription: { vocabulary_id: 'nope' } } } }, `${PARAM}.vocabulary_id`],
    [{ metadata: { count: 3 } }, 'session.metadata'],
    [{ audio: { input: { transcription: { prompt: 'a\u0000b' } } } }, `${PARAM}.prompt`],
    [{ audio: { input: { transcription: { prompt: '\ud800' } } } }, `${PARAM}.prompt`],
    [{ audio: { input: { transcription: { prompt: 'a'.repeat(4001) } } } }, `${PARAM}.prompt`],
    [{ audio: { input: { transcription: { prompt: 7 } } } }, `${PARAM}.prompt`],
  ])('refuses %j naming %s', (session, param) => {
    expect(() => applySessionUpdate(initial, session)).toThrow(expect.objectContaining({ param }));
  });
});
