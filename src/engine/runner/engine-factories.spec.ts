import { ENGINE_REGISTRY } from '../engine-registry';
import { BUILT_IN_DIARIZER_FACTORIES, BUILT_IN_RECOGNIZER_FACTORIES } from './engine-factories';

/** The child's list of factories and the registry's descriptors are the same engines, built the same way. */
describe('engine factories', () => {
  it('has a factory for every built-in recogniser, the one its descriptor builds with', () => {
    expect(BUILT_IN_RECOGNIZER_FACTORIES.map((factory) => factory.kind)).toEqual(
      ENGINE_REGISTRY.recognizerKinds(),
    );
    for (const factory of BUILT_IN_RECOGNIZER_FACTORIES) {
      expect(ENGINE_REGISTRY.recognizer(factory.kind).create).toBe(factory.create);
    }
  });

  it('has a factory for every built-in diarizer, the one its descriptor builds with', () => {
    expect(BUILT_IN_DIARIZER_FACTORIES.map((factory) => factory.kind)).toEqual(
      ENGINE_REGISTRY.diarizerKinds(),
    );
    for (const factory of BUILT_IN_DIARIZER_FACTORIES) {
      expect(ENGINE_REGISTRY.diarizer(factory.kind).create).toBe(factory.create);
    }
  });
});
