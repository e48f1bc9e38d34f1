import { roundSeconds } from '../time.util';
import type { DiarizationSession, Diarizer, SpeakerHints, SpeakerTurn, TimeSpan } from '../engine.types';
import {
  averageLinkage,
  cutAtDistance,
  cutIntoClusters,
  type Dendrogram,
  type DistanceMatrix,
} from './agglomerative-clustering';
import { computeMfcc, DEFAULT_MFCC_OPTIONS } from './mfcc';
import { speakerId } from './speaker-turns';

/**
 * Speaker diarization without any trained model: MFCC statistics of short windows of speech, compared by a
 * symmetric Kullback–Leibler divergence between diagonal Gaussians, grouped by average-linkage clustering,
 * refined by re-assigning short blocks to the closest speaker model, and smoothed into turns.
 *
 * It runs as a stream. Each stretch the pipeline feeds is turned into MFCCs and at once reduced to sufficient
 * statistics (informative-frame count, per-dimension mean and centred sum of squares) of fixed blocks of speech;
 * the frames and samples are dropped. Window models for clustering are sums of consecutive blocks, and the
 * log-likelihood of a block under a diagonal Gaussian follows exactly from its statistics, so resegmentation
 * needs no frames either. Memory: about 180 bytes per block, ≈ 350 bytes per second of speech.
 */
export interface ClassicalDiarizerSettings {
  /** Window length and hop for the clustering statistics, in seconds (rounded to whole blocks). */
  windowSeconds: number;
  hopSeconds: number;
  /** Windows with fewer informative frames than this (in seconds of frames) take no part in clustering. */
  minWindowSeconds: number;
  /** Caps the window count (and so the O(n²) distance matrix) on long files by widening the windows. */
  maxWindows: number;
  /** Share of the quietest speech frames of each stretch left out of the statistics (breaths, pauses). */
  quietFrameShare: number;
  /** Without an exact hint, clusters stop merging once the average divergence between them exceeds this. */
  mergeThreshold: number;
  /** Without an exact hint, a cluster with less speech than this joins its nearest cluster. */
  minSpeakerSeconds: number;
  /** Granularity of the stored statistics, of the resegmentation and so of the turn boundaries, in seconds. */
  blockSeconds: number;
  /** Re-assign each block to the closest speaker model after clustering. */
  resegment: boolean;
  /** A speaker run shorter than this between two runs is absorbed by its neighbours. */
  minTurnSeconds: number;
  /** Consecutive turns of one speaker separated by a pause up to this are joined. */
  joinGapSeconds: number;
}

export const DEFAULT_CLASSICAL_DIARIZER_SETTINGS: ClassicalDiarizerSettings = {
  windowSeconds: 2,
  hopSeconds: 1,
  minWindowSeconds: 0.5,
  maxWindows: 4000,
  quietFrameShare: 0.5,
  mergeThreshold: 0.8,
  minSpeakerSeconds: 2,
  blockSeconds: 0.5,
  resegment: true,
  minTurnSeconds: 0.5,
  joinGapSeconds: 0.5,
};

/** Cepstra c1..c19: c0 is loudness, which says more about distance to the microphone than about the speaker. */
const FIRST_CEPSTRUM = 1;
const DIMS = DEFAULT_MFCC_OPTIONS.coefficients - FIRST_CEPSTRUM;
const SAMPLE_RATE = DEFAULT_MFCC_OPTIONS.sampleRate;
const FRAME_SECONDS = DEFAULT_MFCC_OPTIONS.hopLength / SAMPLE_RATE;
/** Floor on per-dimension variances so near-constant windows do not explode the divergence. */
const VARIANCE_FLOOR = 1e-3;
/** Speech separated by at most this much silence counts as continuous when short runs are smoothed. */
const CONTINUOUS_GAP_SECONDS = 0.5;

/** Diagonal Gaussian summary of a set of frames. */
interface Gaussian {
  mean: Float64Array;
  variance: Float64Array;
  frames: number;
}

interface Window {
  /** Block positions [from, to). */
  from: number;
  to: number;
  model: Gaussian;
}

/**
 * Per-block sufficient statistics of one file in growable typed arrays (no object per block), in time order.
 * The cepstra are not mean-normalised: the symmetric KL divergence and the likelihood comparisons are invariant
 * to a shift common to all frames, and statistics are combined in float64 so the offset costs no precision.
 */
export class BlockStatistics {
  /** Stored blocks. */
  count = 0;
  /** Per block: DIMS means, then DIMS centred sums of squares, over the block's informative frames. */
  moments = new Float32Array(0);
  /** Informative frames per block (the ones the moments cover). */
  informative = new Uint16Array(0);
  /** All speech frames the block covers. */
  frames = new Uint16Array(0);
  /** File seconds the block covers. */
  start = new Float64Array(0);
  end = new Float64Array(0);
  /** Speech span the block belongs to (spans are numbered across the file). */
  span = new Int32Array(0);

  /** Bytes held by the arrays, spare capacity included. */
  get bytes(): number {
    return [this.moments, this.informative, this.frames, this.start, this.end, this.span].reduce(
      (sum, array) => sum + array.byteLength,
      0,
    );
  }

  push(block: {
    moments: Float64Array;
    informative: number;
    frames: number;
    start: number;
    end: number;
    span: number;
  }): void {
    if (this.count === this.span.length) this.grow(Math.max(64, this.count * 2));
    const i = this.count++;
    this.moments.set(block.moments, i * 2 * DIMS);
    this.informative[i] = block.informative;
    this.frames[i] = block.frames;
    this.start[i] = block.start;
    this.end[i] = block.end;
    this.span[i] = block.span;
  }

  private grow(capacity: number): void {
    const copy = <T extends Float32Array | Float64Array | Uint16Array | Int32Array>(
      array: T,
      make: (length: number) => T,
      stride = 1,
    ): T => {
      const bigger = make(capacity * stride);
      bigger.set(array);
      return bigger;
    };
    this.moments = copy(this.moments, (n) => new Float32Array(n), 2 * DIMS);
    this.informative = copy(this.informative, (n) => new Uint16Array(n));
    this.frames = copy(this.frames, (n) => new Uint16Array(n));
    this.start = copy(this.start, (n) => new Float64Array(n));
    this.end = copy(this.end, (n) => new Float64Array(n));
    this.span = copy(this.span, (n) => new Int32Array(n));
  }

  /** Gaussian of the informative frames of blocks [from, to), optionally only those whose label matches. */
  gaussian(from: number, to: number, labels?: Int32Array, label?: number): Gaussian {
    const mean = new Float64Array(DIMS);
    const square = new Float64Array(DIMS);
    let count = 0;
    for (let b = from; b < to; b++) {
      const n = this.informative[b];
      if (n === 0 || (labels && labels[b] !== label)) continue;
      count += n;
      const base = b * 2 * DIMS;
      for (let d = 0; d < DIMS; d++) {
        const blockMean = this.moments[base + d];
        mean[d] += n * blockMean;
        square[d] += this.moments[base + DIMS + d] + n * blockMean * blockMean;
      }
    }
    const variance = new Float64Array(DIMS);
    for (let d = 0; d < DIMS; d++) {
      mean[d] = count > 0 ? mean[d] / count : 0;
      variance[d] = Math.max((count > 0 ? square[d] / count : 0) - mean[d] * mean[d], 0) + VARIANCE_FLOOR;
    }
    return { mean, variance, frames: count };
  }

  /** Log-likelihood of block b's informative frames under a diagonal Gaussian, exact from its statistics. */
  logLikelihood(b: number, model: Gaussian): number {
    const n = this.informative[b];
    const base = b * 2 * DIMS;
    let score = 0;
    for (let d = 0; d < DIMS; d++) {
      const difference = this.moments[base + d] - model.mean[d];
      score -=
        0.5 *
        (n * Math.log(model.variance[d]) +
          (this.moments[base + DIMS + d] + n * difference * difference) / model.variance[d]);
    }
    return score;
  }
}

export class ClassicalDiarizer implements Diarizer {
  readonly name = 'classical';
  private readonly settings: ClassicalDiarizerSettings;

  constructor(settings: Partial<ClassicalDiarizerSettings> = {}) {
    this.settings = { ...DEFAULT_CLASSICAL_DIARIZER_SETTINGS, ...settings };
  }

  begin(hints: SpeakerHints): ClassicalDiarizationSession {
    return new ClassicalDiarizationSession(this.settings, hints);
  }
}

export class ClassicalDiarizationSession implements DiarizationSession {
  /** Everything the session keeps between stretches. */
  readonly blocks = new BlockStatistics();
  private spans = 0;
  /** End of the last stretch, in file seconds: speech before it was already seen. */
  private reached = 0;
  /** End of the last speech span stored. */
  private speechReached = -Infinity;
  private finished = false;

  constructor(
    private readonly settings: ClassicalDiarizerSettings,
    private readonly hints: SpeakerHints,
  ) {}

  /** MFCCs of the frames whose centre lies inside a speech span, on the file's 10 ms frame grid. */
  async add(samples: Float32Array, offset: number, speech: readonly TimeSpan[]): Promise<void> {
    if (this.finished) throw new Error('diarization session already finished');
    const { frameLength, hopLength, coefficients } = DEFAULT_MFCC_OPTIONS;
    const firstSample = Math.round(offset * SAMPLE_RATE);
    const stretchEnd = (firstSample + samples.length) / SAMPLE_RATE;
    const spans = normaliseSpans(speech, Math.max(this.reached, firstSample / SAMPLE_RATE), stretchEnd);
    this.reached = Math.max(this.reached, stretchEnd);
    // Frame t covers file samples [t·hop, t·hop + frameLength); only frames wholly inside the stretch are used.
    const firstFrame = Math.ceil(firstSample / hopLength);
    const lastFrame = Math.floor((firstSample + samples.length - frameLength) / hopLength);
    const pieces: Array<{ span: TimeSpan; first: number; data: Float32Array; logEnergy: Float32Array }> = [];
    for (const span of spans) {
      const first = Math.max(firstFrame, Math.ceil((span.start * SAMPLE_RATE - frameLength / 2) / hopLength));
      const last = Math.min(lastFrame, Math.floor((span.end * SAMPLE_RATE - frameLength / 2) / hopLength));
      if (last < first) continue;
      const mfcc = computeMfcc(
        samples.subarray(first * hopLength - firstSample, last * hopLength + frameLength - firstSample),
      );
      pieces.push({ span, first, data: mfcc.data, logEnergy: mfcc.logEnergy });
    }
    const energyFloor = quantile(
      pieces.flatMap((piece) => Array.from(piece.logEnergy)),
      this.settings.quietFrameShare,
    );
    const blockFrames = Math.max(1, Math.round(this.settings.blockSeconds / FRAME_SECONDS));
    const moments = new Float64Array(2 * DIMS);
    for (const { span, first, data, logEnergy } of pieces) {
      // Speech cut at a stretch boundary (the chunker splits long spans) goes on as the same span, so windows
      // still reach across the cut.
      const continues = this.blocks.count > 0 && span.start - this.speechReached < FRAME_SECONDS * 2;
      const spanNumber = continues ? this.spans - 1 : this.spans++;
      this.speechReached = span.end;
      const frames = logEnergy.length;
      for (let from = 0; from < frames; from += blockFrames) {
        const to = Math.min(frames, from + blockFrames);
        const informative = blockMoments(data, logEnergy, from, to, energyFloor, coefficients, moments);
        this.blocks.push({
          moments,
          informative,
          frames: to - from,
          start: from === 0 ? span.start : frameCentre(first + from) - FRAME_SECONDS / 2,
          end: to === frames ? span.end : frameCentre(first + to - 1) + FRAME_SECONDS / 2,
          span: spanNumber,
        });
      }
    }
  }

  async finish(): Promise<SpeakerTurn[]> {
    if (this.finished) throw new Error('diarization session already finished');
    this.finished = true;
    const blocks = this.blocks;
    if (blocks.count === 0) return [];
    const hints = this.hints;
    const windows = this.makeWindows();
    let labels: Int32Array = new Int32Array(blocks.count);
    if (
      windows.length >= 2 &&
      !('exact' in hints && hints.exact <= 1) &&
      !('max' in hints && hints.max <= 1)
    ) {
      const windowLabels = this.clusterWindows(windows, hints);
      labels = labelBlocksFromWindows(blocks.count, windows, windowLabels);
      if (this.settings.resegment && largest(windowLabels) > 0) labels = resegment(blocks, labels);
    }
    smoothRuns(blocks, labels, Math.round(this.settings.minTurnSeconds / FRAME_SECONDS));
    return buildTurns(blocks, labels, this.settings.joinGapSeconds);
  }

  private makeWindows(): Window[] {
    const { windowSeconds, hopSeconds, blockSeconds, minWindowSeconds, maxWindows } = this.settings;
    const blocks = this.blocks;
    const baseLength = Math.max(1, Math.round(windowSeconds / blockSeconds));
    const baseHop = Math.max(1, Math.round(hopSeconds / blockSeconds));
    // Long files get a wider hop and proportionally wider windows, so about maxWindows windows still cover
    // all the speech; the distance matrix stays at most maxWindows² entries.
    const hop = Math.max(baseHop, Math.ceil(blocks.count / maxWindows));
    const length = Math.max(baseLength, Math.round((hop * baseLength) / baseHop));
    const minimum = Math.round(minWindowSeconds / FRAME_SECONDS);
    const blockFrames = Math.round(blockSeconds / FRAME_SECONDS);
    const windows: Window[] = [];
    let spanStart = 0;
    while (spanStart < blocks.count) {
      let spanEnd = spanStart;
      while (spanEnd < blocks.count && blocks.span[spanEnd] === blocks.span[spanStart]) spanEnd++;
      for (let from = spanStart; from < spanEnd; from += hop) {
        // The last window of a span is pulled back so it is full length when the span allows: the span's last
        // block is usually short, so the window reaches back until it holds a full window's frames.
        const to = Math.min(spanEnd, from + length);
        let start = Math.max(spanStart, to - length);
        if (to === spanEnd) {
          let frames = 0;
          for (let b = start; b < to; b++) frames += blocks.frames[b];
          while (start > spanStart && frames < length * blockFrames) frames += blocks.frames[--start];
        }
        const model = blocks.gaussian(start, to);
        if (model.frames >= minimum) windows.push({ from: start, to, model });
        if (to >= spanEnd) break;
      }
      spanStart = spanEnd;
    }
    // Many short spans can each add a window beyond the estimate above; an even subsample keeps the bound.
    if (windows.length <= maxWindows) return windows;
    return Array.from(
      { length: maxWindows },
      (_, i) => windows[Math.floor((i * windows.length) / maxWindows)],
    );
  }

  private clusterWindows(windows: Window[], hints: SpeakerHints): number[] {
    const dendrogram = averageLinkage(divergenceMatrix(windows.map((window) => window.model)));
    const minFrames = this.settings.minSpeakerSeconds / FRAME_SECONDS;
    const overlap = windowOverlap(this.blocks, windows);
    if ('exact' in hints) return exactClusters(dendrogram, windows, hints.exact, minFrames, overlap);
    const labels = absorbSmallClusters(
      windows,
      cutAtDistance(dendrogram, this.settings.mergeThreshold),
      minFrames,
      overlap,
    );
    const found = largest(labels) + 1;
    if ('min' in hints && (found < hints.min || found > hints.max)) {
      const wanted = Math.min(Math.max(found, hints.min), hints.max);
      return exactClusters(dendrogram, windows, wanted, minFrames, overlap);
    }
    return labels;
  }
}

/**
 * Fills `moments` with the mean and centred sum of squares of the informative frames [from, to) of one MFCC
 * piece (cepstra c1..c19 of rows `stride` wide) and returns how many frames were informative.
 */
function blockMoments(
  data: Float32Array,
  logEnergy: Float32Array,
  from: number,
  to: number,
  energyFloor: number,
  stride: number,
  moments: Float64Array,
): number {
  moments.fill(0);
  let count = 0;
  for (let t = from; t < to; t++) {
    if (logEnergy[t] < energyFloor) continue;
    count++;
    for (let d = 0; d < DIMS; d++) moments[d] += data[t * stride + FIRST_CEPSTRUM + d];
  }
  if (count === 0) return 0;
  for (let d = 0; d < DIMS; d++) moments[d] /= count;
  for (let t = from; t < to; t++) {
    if (logEnergy[t] < energyFloor) continue;
    for (let d = 0; d < DIMS; d++) {
      const difference = data[t * stride + FIRST_CEPSTRUM + d] - moments[d];
      moments[DIMS + d] += difference * difference;
    }
  }
  return count;
}

/** The value below which `share` of the values lie (the loudest frame when share is 1); -Infinity when empty. */
function quantile(values: number[], share: number): number {
  if (values.length === 0) return -Infinity;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];
}

/** Speech spans clipped to [from, to), sorted, overlaps merged. */
function normaliseSpans(speech: readonly TimeSpan[], from: number, to: number): TimeSpan[] {
  const sorted = speech
    .map((span) => ({ start: Math.max(from, span.start), end: Math.min(to, span.end) }))
    .filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start);
  const merged: TimeSpan[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** How much deeper than k the tree is searched for k substantial clusters. */
const MAX_EXTRA_CLUSTERS = 8;

/**
 * The top k branches of an average-linkage tree are often one speaker versus a handful of odd windows
 * (laughter, a cough, crosstalk). So the tree is cut lower, at the first level that yields k clusters with
 * enough speech each; those k keep their windows and every other window joins the nearest of them.
 */
function exactClusters(
  dendrogram: Dendrogram,
  windows: readonly Window[],
  k: number,
  minFrames: number,
  overlap: number,
): number[] {
  const limit = Math.min(windows.length, k + MAX_EXTRA_CLUSTERS);
  for (let candidate = k; candidate <= limit; candidate++) {
    const labels = cutIntoClusters(dendrogram, candidate);
    const sizes = clusterFrames(windows, labels, overlap);
    const big = [...sizes.entries()].filter(([, frames]) => frames >= minFrames).sort((a, b) => b[1] - a[1]);
    if (big.length >= k)
      return assignToNearest(windows, labels, new Set(big.slice(0, k).map(([label]) => label)));
  }
  return cutIntoClusters(dendrogram, k);
}

/** How many windows cover an informative frame on average: informative frames in windows / speech frames. */
function windowOverlap(blocks: BlockStatistics, windows: readonly Window[]): number {
  let unique = 0;
  let reached = -1;
  for (const window of windows) {
    for (let b = Math.max(window.from, reached); b < window.to; b++) unique += blocks.frames[b];
    reached = Math.max(reached, window.to);
  }
  return windows.reduce((sum, window) => sum + window.model.frames, 0) / Math.max(1, unique);
}

/** Speech frames per cluster, windows' overlap discounted. */
function clusterFrames(
  windows: readonly Window[],
  labels: readonly number[],
  overlap: number,
): Map<number, number> {
  const frames = new Map<number, number>();
  windows.forEach((window, i) =>
    frames.set(labels[i], (frames.get(labels[i]) ?? 0) + window.model.frames / overlap),
  );
  return frames;
}

/** Windows outside the kept clusters join the kept cluster with the smallest average divergence to them. */
function assignToNearest(
  windows: readonly Window[],
  labels: readonly number[],
  kept: ReadonlySet<number>,
): number[] {
  const members = new Map<number, number[]>();
  labels.forEach((label, i) => {
    if (kept.has(label)) members.set(label, [...(members.get(label) ?? []), i]);
  });
  const result = labels.map((label, i) => {
    if (kept.has(label)) return label;
    let best = label;
    let bestDistance = Infinity;
    for (const [cluster, indices] of members) {
      const distance =
        indices.reduce((sum, j) => sum + symmetricDivergence(windows[i].model, windows[j].model), 0) /
        indices.length;
      if (distance < bestDistance) {
        bestDistance = distance;
        best = cluster;
      }
    }
    return best;
  });
  return renumber(result);
}

function renumber(labels: readonly number[]): number[] {
  const names = new Map<number, number>();
  return labels.map((label) => {
    if (!names.has(label)) names.set(label, names.size);
    return names.get(label) as number;
  });
}

/** Symmetric KL divergence between two diagonal Gaussians, averaged over dimensions. */
export function symmetricDivergence(a: Gaussian, b: Gaussian): number {
  let sum = 0;
  for (let d = 0; d < DIMS; d++) {
    const [va, vb] = [a.variance[d], b.variance[d]];
    const difference = a.mean[d] - b.mean[d];
    sum += 0.5 * (va / vb + vb / va - 2) + 0.5 * difference * difference * (1 / va + 1 / vb);
  }
  return sum / DIMS;
}

function divergenceMatrix(models: readonly Gaussian[]): DistanceMatrix {
  const size = models.length;
  const values = new Float32Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let j = i + 1; j < size; j++) {
      const value = symmetricDivergence(models[i], models[j]);
      values[i * size + j] = value;
      values[j * size + i] = value;
    }
  }
  return { size, values };
}

/**
 * A cluster with too little speech is more likely a cough, laughter or a noisy stretch than a person; it joins
 * the cluster whose windows are closest on average. Labels come back renumbered 0..k-1.
 */
function absorbSmallClusters(
  windows: readonly Window[],
  labels: number[],
  minFrames: number,
  overlap: number,
): number[] {
  let result = [...labels];
  for (;;) {
    const sizes = clusterFrames(windows, result, overlap);
    if (sizes.size < 2) break;
    const [smallest, frames] = [...sizes.entries()].reduce((a, b) => (a[1] <= b[1] ? a : b));
    if (frames >= minFrames) break;
    const others = new Set([...sizes.keys()].filter((label) => label !== smallest));
    result = assignToNearest(windows, result, others);
  }
  return renumber(result);
}

/** Each block takes the label of the window whose centre is nearest. */
function labelBlocksFromWindows(
  count: number,
  windows: readonly Window[],
  labels: readonly number[],
): Int32Array {
  const result = new Int32Array(count);
  const centres = windows.map((window) => (window.from + window.to - 1) / 2);
  let w = 0;
  for (let b = 0; b < count; b++) {
    // Windows are in time order; advance while the next centre is closer.
    while (w + 1 < windows.length && Math.abs(centres[w + 1] - b) <= Math.abs(centres[w] - b)) w++;
    result[b] = labels[w];
  }
  return result;
}

/**
 * One pass of model-based re-assignment: a Gaussian per speaker from the current labels, then each block goes
 * to the speaker under which it is most likely. Corrects window-sized boundary errors.
 */
function resegment(blocks: BlockStatistics, labels: Int32Array): Int32Array {
  const speakers = largest(labels) + 1;
  const models = Array.from({ length: speakers }, (_, s) => blocks.gaussian(0, blocks.count, labels, s));
  const result = new Int32Array(labels);
  for (let b = 0; b < blocks.count; b++) {
    // A block without informative frames has no evidence; it keeps its label.
    if (blocks.informative[b] === 0) continue;
    let best = labels[b];
    let bestScore = -Infinity;
    for (let s = 0; s < speakers; s++) {
      if (models[s].frames < DIMS * 2) continue;
      const score = blocks.logLikelihood(b, models[s]);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    result[b] = best;
  }
  return result;
}

/** Runs of blocks (within continuous speech) shorter than minFrames take the label of the longer neighbour. */
function smoothRuns(blocks: BlockStatistics, labels: Int32Array, minFrames: number): void {
  const continuous = (b: number): boolean => blocks.start[b] - blocks.end[b - 1] <= CONTINUOUS_GAP_SECONDS;
  for (let pass = 0; pass < 3; pass++) {
    const runs: Array<{ from: number; to: number; frames: number; label: number }> = [];
    for (let b = 0; b < labels.length; b++) {
      const last = runs[runs.length - 1];
      if (last && continuous(b) && last.label === labels[b]) {
        last.to = b + 1;
        last.frames += blocks.frames[b];
      } else runs.push({ from: b, to: b + 1, frames: blocks.frames[b], label: labels[b] });
    }
    let changed = false;
    runs.forEach((run, r) => {
      if (run.frames >= minFrames) return;
      const before = r > 0 && continuous(run.from) ? runs[r - 1] : undefined;
      const after = r + 1 < runs.length && continuous(run.to) ? runs[r + 1] : undefined;
      const neighbour =
        before && after ? (before.frames >= after.frames ? before : after) : (before ?? after);
      if (!neighbour || neighbour.label === run.label) return;
      labels.fill(neighbour.label, run.from, run.to);
      changed = true;
    });
    if (!changed) break;
  }
}

function buildTurns(blocks: BlockStatistics, labels: Int32Array, joinGap: number): SpeakerTurn[] {
  // Speaker ids follow first appearance.
  const names = new Map<number, string>();
  const turns: SpeakerTurn[] = [];
  for (let b = 0; b < labels.length; b++) {
    if (!names.has(labels[b])) names.set(labels[b], speakerId(names.size));
    const speaker = names.get(labels[b]) as string;
    const [start, end] = [blocks.start[b], blocks.end[b]];
    const last = turns[turns.length - 1];
    if (last && last.speaker === speaker && start - last.end <= joinGap + 1e-9) last.end = end;
    else turns.push({ start, end, speaker });
  }
  return turns.map((turn) => ({
    start: roundSeconds(turn.start),
    end: roundSeconds(turn.end),
    speaker: turn.speaker,
  }));
}

function frameCentre(index: number): number {
  return (index * DEFAULT_MFCC_OPTIONS.hopLength + DEFAULT_MFCC_OPTIONS.frameLength / 2) / SAMPLE_RATE;
}

/** Math.max without spreading, which overflows the stack on long inputs. */
function largest(values: ArrayLike<number>): number {
  let result = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i] > result) result = values[i];
  return result;
}
