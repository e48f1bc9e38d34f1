import type { DiarizerDescriptor } from '../registry/engine-descriptor';
import type { ClassicalDiarizerSettings } from './classical.diarizer';
import { classicalFactory } from './classical.factory';

/** The built-in diarizer (MFCC + clustering, no model files): `auto`'s last resort on every tier. */
export const classicalDiarizer: DiarizerDescriptor<Partial<ClassicalDiarizerSettings>> = {
  ...classicalFactory,
  autoRank: 100,
  resolve: () => ({ outcome: 'resolved', settings: {} }),
};
