/**
 * Imported first by main.ts and the engine child: holds this process's young generation at its starting size
 * while it loads, unless the operator sized it (young-generation.ts). A module of its own so that importing the
 * rules (tests) changes nothing.
 */
import { capYoungGeneration, holdYoungGeneration } from './young-generation';

// eslint-disable-next-line no-restricted-properties -- node's own options, read before any configuration exists
const nodeOptions = process.env.NODE_OPTIONS;

holdYoungGeneration(process.execArgv, nodeOptions);

/** main.ts once the process serves, the engine child once loaded: it may grow again, up to the cap. */
export function capYoungGenerationOnceServing(): void {
  capYoungGeneration(process.execArgv, nodeOptions);
}
