/**
 * V8's young generation (where new objects are allocated) starts at 1 MB per semi-space and, left alone, grows
 * under allocation pressure up to a limit V8 derives from the machine's memory: 64 MB per semi-space here, so
 * 128 MB of new space per process, rarely given back. Every process of the service allocates hard while it
 * loads (Nest's modules, the OpenAPI document, the engines' code), so at rest an API process held ~245 MB and a
 * worker ~187 MB, 75 and 45 MB of it young generation (docs/decisions.md, "V8's young generation").
 *
 * Two steps, both by V8's `--semi-space-growth-factor`, the one size setting V8 reads again each time it would
 * grow the new space (the size flags themselves are read once, when the heap is made):
 * - **held while loading** (holdYoungGeneration, a factor of 1): hold-young-generation.ts is the first import of
 *   main.ts and of the engine child, so nothing they load grows it.
 * - **capped once serving** (capYoungGeneration: API and worker processes after start-up, the engine child once
 *   loaded, where it made no difference that bench/long-audio.ts could tell from noise): it may grow again,
 *   to at most YOUNG_GENERATION_CAP_MB per semi-space (V8 alone: 64 MB here), checked after each collection.
 *   Held at its starting size for good, an API process answered 27 % fewer status requests than left to V8
 *   (more objects promoted, more full collections); capped, 10 % fewer, with a peak under load ~100 MB lower
 *   (bench/api-load.ts, docs/benchmarks.md).
 *
 * An operator who sizes the young generation themselves (`--max-semi-space-size` or `--min-semi-space-size`, on
 * node's command line or in NODE_OPTIONS) keeps exactly what they set: neither step applies.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The most a semi-space may grow to once a process serves (MB); the new space is two of them. */
export const YOUNG_GENERATION_CAP_MB = 32;

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
 * The growth factor for a new space of this size: 2 (V8's own) while two more doublings stay within the cap, 1
 * (no growth) from there. The factor is checked after collections, between turns of the event loop, so a turn
 * can grow it once more before the check (sizes are powers of two from the 1 MB start: the semi-space stops at
 * half the cap or at the cap). A soft cap: one long synchronous task that allocates hard can grow it further, up
 * to V8's own limit, before the next check stops it.
 */
export function growthFactorFor(newSpaceBytes: number, capSemiSpaceMb: number): 1 | 2 {
  const semiSpaceBytes = newSpaceBytes / 2;
  return semiSpaceBytes * 4 <= capSemiSpaceMb * 2 ** 20 ? 2 : 1;
}

function setGrowthFactor(factor: 1 | 2): void {
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
}

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** Stops the young generation from growing beyond its starting size, unless the operator sized it. */
export function holdYoungGeneration(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  if (youngGenerationSizedByOperator(execArgv, nodeOptions)) return false;
  setGrowthFactor(1);
  return true;
}

/**
 * Lets the young generation grow again, to at most `capSemiSpaceMb` per semi-space: after each collection the
 * growth factor is set for the size the main thread's new space has then (growthFactorFor). Does nothing when
 * the operator sized it.
 */
export function capYoungGeneration(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  capSemiSpaceMb: number = YOUNG_GENERATION_CAP_MB,
): void {
  if (youngGenerationSizedByOperator(execArgv, nodeOptions)) return;
  let factor: 1 | 2 | null = null;
  const check = (): void => {
    const wanted = growthFactorFor(newSpaceBytes(), capSemiSpaceMb);
    if (wanted === factor) return;
    factor = wanted;
    setGrowthFactor(wanted);
  };
  check();
  new PerformanceObserver(check).observe({ entryTypes: ['gc'] });
}
