import { EngineError } from './engine.types';
import type { RecognizerDescriptor } from './registry/engine-descriptor';
import { ENGINE_REGISTRY, EngineRegistry } from './engine-registry';

const stub = (kind: string, extra: Partial<RecognizerDescriptor> = {}): RecognizerDescriptor => ({
  kind,
  spellsNumbersOut: false,
  streamsLive: false,
  resolve: () => ({ outcome: 'unavailable', reason: 'stub' }),
  languages: () => 'all',
  create: () => {
    throw new Error('not built in this test');
  },
  checkReadiness: async () => ({}),
  engineName: kind,
  model: () => ({ name: kind }),
  ...extra,
});

describe('EngineRegistry', () => {
  it('holds the built-in engines, in the order the validation message lists them', () => {
    expect(ENGINE_REGISTRY.recognizerKinds()).toEqual(['pocketsphinx', 'whisper-cpp', 'openai-compatible']);
    expect(ENGINE_REGISTRY.diarizerKinds()).toEqual(['classical', 'sherpa-onnx']);
  });

  it('tries whisper-cpp before pocketsphinx for auto, never openai-compatible; sherpa-onnx only on premium tiers', () => {
    expect(ENGINE_REGISTRY.autoRecognizers('standard').map((engine) => engine.kind)).toEqual([
      'whisper-cpp',
      'pocketsphinx',
    ]);
    expect(ENGINE_REGISTRY.autoDiarizers('standard').map((engine) => engine.kind)).toEqual(['classical']);
    expect(ENGINE_REGISTRY.autoDiarizers('premium').map((engine) => engine.kind)).toEqual([
      'sherpa-onnx',
      'classical',
    ]);
  });

  it('orders auto candidates by rank and honours autoTiers', () => {
    const registry = new EngineRegistry(
      [
        stub('late', { autoRank: 9 }),
        stub('named-only'),
        stub('early', { autoRank: 1, autoTiers: ['premium'] }),
      ],
      [],
    );
    expect(registry.autoRecognizers('premium').map((engine) => engine.kind)).toEqual(['early', 'late']);
    expect(registry.autoRecognizers('standard').map((engine) => engine.kind)).toEqual(['late']);
  });

  it('refuses a kind registered twice, and `auto` as a name', () => {
    const registry = new EngineRegistry([stub('one')], []);
    expect(() => registry.registerRecognizer(stub('one'))).toThrow(
      "the recogniser 'one' is registered twice",
    );
    expect(() => registry.registerRecognizer(stub('auto'))).toThrow("'auto' is not a recogniser name");
  });

  it('fails an unknown kind as an engine failure', () => {
    const registry = new EngineRegistry([], []);
    expect(() => registry.recognizer('nowhere')).toThrow(EngineError);
    expect(() => registry.recognizerOf({ kind: 'nowhere', settings: {} })).toThrow("no recogniser 'nowhere'");
  });

  it('lists the engine slice and each engine’s own slice once', () => {
    const names = ENGINE_REGISTRY.configSlices().map((slice) => slice.name);
    expect(names).toEqual(['EngineConfig', 'WhisperCppConfig', 'OpenAiSttConfig']);
  });
});
