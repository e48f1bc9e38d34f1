import { EngineError } from '../engine.types';
import type { EngineChoice } from './engine-descriptor';

/**
 * Loads the module of an engine registered from outside src/engine (`choice.modulePath`) and finds the export
 * whose `kind` is the choice's: its descriptor, which is also what the engine child builds the engine with.
 */
export function exportedEngine<Engine extends { kind: string }>(choice: EngineChoice): Engine {
  // The path comes from the registering process's own descriptor, never from a request.
  // eslint-disable-next-line @typescript-eslint/no-require-imports, security/detect-non-literal-require
  const exports = require(choice.modulePath as string) as Record<string, unknown>;
  const found = Object.values(exports).find(
    (value): value is Engine =>
      typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === choice.kind,
  );
  if (!found) {
    throw new EngineError('ENGINE_FAILED', `${choice.modulePath} exports no engine '${choice.kind}'`);
  }
  return found;
}
