/**
 * V8's young generation (where new objects are allocated) starts at 1 MB per semi-space and, left alone, grows
 * under allocation pressure up to a limit V8 derives from the machine's memory: 64 MB per semi-space here, so
 * up to 128 MB of new space per process that is rarely given back. The service's processes all allocate hard
 * while they load (Nest's modules, the OpenAPI document, the engines' code), so at rest an API process held
 * ~245 MB and a worker ~187 MB, 75 and 45 MB of it young generation (docs/benchmarks.md, "The whole service's
 * memory on a long file"). Each process therefore keeps its young generation at its starting size: an object
 * that lives past one scavenge moves to the old generation as before, only scavenges come more often (their
 * cost is measured against the memory in bench/api-load.ts).
 *
 * hold-young-generation.ts applies it; every entry point that runs the service's code (main.ts, the engine
 * child) imports that first, so it takes effect before their modules load; V8's flags are per process, so the worker threads started later
 * (recognisers, live sessions) are held too. An operator who sizes the young generation themselves
 * (`--max-semi-space-size` or `--min-semi-space-size`, on node's command line or in NODE_OPTIONS) keeps exactly
 * what they set.
 */
import { setFlagsFromString } from 'node:v8';

const OPERATOR_SIZE_FLAG = /^--(?:max|min)[-_]semi[-_]space[-_]size(?:=|$)/;

/** Whether the young generation was sized on node's command line or in NODE_OPTIONS. */
export function youngGenerationSizedByOperator(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): boolean {
  const options = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return options.some((option) => OPERATOR_SIZE_FLAG.test(option));
}

/**
 * Stops the young generation from growing beyond its starting size (a growth factor of 1: V8 reads it each time
 * it would grow the new space), unless the operator sized it. Returns whether it did.
 */
export function holdYoungGeneration(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  if (youngGenerationSizedByOperator(execArgv, nodeOptions)) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
