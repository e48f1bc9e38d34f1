/**
 * Imported first by main.ts and the engine child: holds this process's young generation at its starting size
 * unless the operator sized it (young-generation.ts). A module of its own so that importing the rule (tests)
 * changes nothing.
 */
import { holdYoungGeneration } from './young-generation';

// eslint-disable-next-line no-restricted-properties -- node's own options, read before any configuration exists
holdYoungGeneration(process.execArgv, process.env.NODE_OPTIONS);
