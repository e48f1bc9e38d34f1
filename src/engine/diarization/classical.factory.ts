import type { DiarizerFactory } from '../registry/engine-descriptor';
import { ClassicalDiarizer, type ClassicalDiarizerSettings } from './classical.diarizer';

export const classicalFactory: DiarizerFactory<Partial<ClassicalDiarizerSettings>> = {
  kind: 'classical',
  create: (settings) => new ClassicalDiarizer(settings),
};
