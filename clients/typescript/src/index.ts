export * from './transcription-client';
export * from './problem';
export * from './verify-webhook';
export * from './realtime';
export type { components, paths, operations } from './schema';
