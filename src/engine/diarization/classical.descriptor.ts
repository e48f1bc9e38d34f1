import type { DiarizerDescriptor } from '../registry/engine-descriptor';
import { ClassicalDiarizer, type ClassicalDiarizerSettings } from './classical.diarizer';

/** The built-in diarizer (MFCC + clustering, no model files): `auto`'s last resort on every tier. */
export const classicalDiarizer: DiarizerDescriptor<Partial<ClassicalDiarizerSettings>> = {
  kind: 'classical',
  autoRank: 100,
  resolve: () => ({ outcome: 'resolved', settings: {} }),
  create: (settings) => new ClassicalDiarizer(settings),
};
