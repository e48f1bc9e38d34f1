import { roundSeconds } from '../time.util';
import type { Diarizer, Pcm, SpeakerHints, SpeakerTurn, TimeSpan } from '../engine.types';
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
 */
export interface ClassicalDiarizerSettings {
  /** Window length and hop for the per-window statistics, in seconds. */
  windowSeconds: number;
  hopSeconds: number;
  /** Speech spans with fewer informative frames than this get no window of their own. */
  minWindowSeconds: number;
  /** Caps the window count (and so the O(n²) clustering) on long files by widening the hop. */
  maxWindows: number;
  /** Share of the quietest speech frames left out of the statistics (breaths, pauses inside VAD spans). */
  quietFrameShare: number;
  /** Without an exact hint, clusters stop merging once the average divergence between them exceeds this. */
  mergeThreshold: number;
  /** Without an exact hint, a cluster with less speech than this joins its nearest cluster. */
  minSpeakerSeconds: number;
  /** Blocks re-assigned to the closest speaker model after clustering, in seconds (0 disables). */
  resegmentBlockSeconds: number;
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
  resegmentBlockSeconds: 0.5,
  minTurnSeconds: 0.5,
  joinGapSeconds: 0.5,
};

/** Cepstra c1..c19: c0 is loudness, which says more about distance to the microphone than about the speaker. */
const FIRST_CEPSTRUM = 1;
const DIMS = DEFAULT_MFCC_OPTIONS.coefficients - FIRST_CEPSTRUM;
const HOP_SECONDS = DEFAULT_MFCC_OPTIONS.hopLength / DEFAULT_MFCC_OPTIONS.sampleRate;
/** Floor on per-dimension variances so near-constant windows do not explode the divergence. */
const VARIANCE_FLOOR = 1e-3;

/** Frame-level features of the speech part of a file, on the global 10 ms frame grid. */
interface SpeechFrames {
  /** Global frame index of each speech frame, ascending. */
  index: Int32Array;
  /** Cepstra (c1..c19, mean-normalised) of each speech frame, row-major. */
  features: Float32Array;
  /** Whether the frame is loud enough to feed statistics. */
  informative: Uint8Array;
  /** Speech span each frame belongs to. */
  span: Int32Array;
}

/** Diagonal Gaussian summary of a set of frames. */
interface Gaussian {
  mean: Float64Array;
  variance: Float64Array;
  frames: number;
}

interface Window {
  /** Speech-frame positions [from, to). */
  from: number;
  to: number;
  model: Gaussian;
}

export class ClassicalDiarizer implements Diarizer {
  readonly name = 'classical';
  private readonly settings: ClassicalDiarizerSettings;

  constructor(settings: Partial<ClassicalDiarizerSettings> = {}) {
    this.settings = { ...DEFAULT_CLASSICAL_DIARIZER_SETTINGS, ...settings };
  }

  async diarize(pcm: Pcm, speech: TimeSpan[], hints: SpeakerHints): Promise<SpeakerTurn[]> {
    const spans = normaliseSpans(speech, pcm.samples.length / pcm.sampleRate);
    const frames = extractSpeechFrames(pcm, spans, this.settings.quietFrameShare);
    if (frames.index.length === 0) return [];
    const windows = this.makeWindows(frames);
    let frameLabels: Int32Array;
    if (windows.length < 2 || ('exact' in hints && hints.exact <= 1) || ('max' in hints && hints.max <= 1)) {
      frameLabels = new Int32Array(frames.index.length);
    } else {
      const windowLabels = this.clusterWindows(windows, hints);
      frameLabels = labelFramesFromWindows(frames, windows, windowLabels);
      if (this.settings.resegmentBlockSeconds > 0 && largest(windowLabels) > 0) {
        frameLabels = resegment(
          frames,
          frameLabels,
          Math.round(this.settings.resegmentBlockSeconds / HOP_SECONDS),
        );
      }
    }
    smoothRuns(frames, frameLabels, Math.round(this.settings.minTurnSeconds / HOP_SECONDS));
    return buildTurns(frames, frameLabels, spans, this.settings.joinGapSeconds);
  }

  private makeWindows(frames: SpeechFrames): Window[] {
    const { windowSeconds, minWindowSeconds, maxWindows } = this.settings;
    const length = Math.round(windowSeconds / HOP_SECONDS);
    const minimum = Math.round(minWindowSeconds / HOP_SECONDS);
    // Wider hops on long files keep the distance matrix at most maxWindows² entries.
    const informativeTotal = frames.informative.reduce((sum, flag) => sum + flag, 0);
    const hop = Math.max(
      Math.round(this.settings.hopSeconds / HOP_SECONDS),
      Math.ceil(informativeTotal / maxWindows),
    );
    const windows: Window[] = [];
    let spanStart = 0;
    const total = frames.index.length;
    while (spanStart < total) {
      let spanEnd = spanStart;
      while (spanEnd < total && frames.span[spanEnd] === frames.span[spanStart]) spanEnd++;
      for (let from = spanStart; from < spanEnd; from += hop) {
        // The last window of a span is pulled back so it is full length when the span allows.
        const to = Math.min(spanEnd, from + length);
        const start = Math.max(spanStart, to - length);
        const model = gaussianOf(frames, start, to);
        if (model.frames >= minimum) windows.push({ from: start, to, model });
        if (to >= spanEnd) break;
      }
      spanStart = spanEnd;
    }
    return windows;
  }

  private clusterWindows(windows: Window[], hints: SpeakerHints): number[] {
    const dendrogram = averageLinkage(divergenceMatrix(windows.map((window) => window.model)));
    const minFrames = this.settings.minSpeakerSeconds / HOP_SECONDS;
    if ('exact' in hints) return this.exactClusters(dendrogram, windows, hints.exact, minFrames);
    const labels = absorbSmallClusters(
      windows,
      cutAtDistance(dendrogram, this.settings.mergeThreshold),
      minFrames,
    );
    const found = largest(labels) + 1;
    if ('min' in hints && (found < hints.min || found > hints.max)) {
      return this.exactClusters(
        dendrogram,
        windows,
        Math.min(Math.max(found, hints.min), hints.max),
        minFrames,
      );
    }
    return labels;
  }

  /**
   * The top k branches of an average-linkage tree are often one speaker versus a handful of odd windows
   * (laughter, a cough, crosstalk). So the tree is cut lower, at the first level that yields k clusters with
   * enough speech each; those k keep their windows and every other window joins the nearest of them.
   */
  private exactClusters(
    dendrogram: Dendrogram,
    windows: readonly Window[],
    k: number,
    minFrames: number,
  ): number[] {
    const limit = Math.min(windows.length, k + MAX_EXTRA_CLUSTERS);
    for (let candidate = k; candidate <= limit; candidate++) {
      const labels = cutIntoClusters(dendrogram, candidate);
      const sizes = clusterFrames(windows, labels);
      const big = [...sizes.entries()]
        .filter(([, frames]) => frames >= minFrames)
        .sort((a, b) => b[1] - a[1]);
      if (big.length >= k)
        return assignToNearest(windows, labels, new Set(big.slice(0, k).map(([label]) => label)));
    }
    return cutIntoClusters(dendrogram, k);
  }
}

/** How much deeper than k the tree is searched for k substantial clusters. */
const MAX_EXTRA_CLUSTERS = 8;

/** Speech frames per cluster, windows' overlap discounted. */
function clusterFrames(windows: readonly Window[], labels: readonly number[]): Map<number, number> {
  const overlap =
    windows.reduce((sum, window) => sum + window.model.frames, 0) / Math.max(1, uniqueFrames(windows));
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

function normaliseSpans(speech: readonly TimeSpan[], duration: number): TimeSpan[] {
  const sorted = speech
    .map((span) => ({ start: Math.max(0, span.start), end: Math.min(duration, span.end) }))
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

/** MFCCs of the frames whose centre lies inside a speech span, computed span by span on the global grid. */
function extractSpeechFrames(pcm: Pcm, spans: readonly TimeSpan[], quietFrameShare: number): SpeechFrames {
  const { frameLength, hopLength, coefficients } = DEFAULT_MFCC_OPTIONS;
  const rate = pcm.sampleRate;
  const available =
    pcm.samples.length < frameLength ? 0 : 1 + Math.floor((pcm.samples.length - frameLength) / hopLength);
  const indexList: number[] = [];
  const spanList: number[] = [];
  const chunks: Float32Array[] = [];
  const energies: number[] = [];
  spans.forEach((span, spanNumber) => {
    const first = Math.max(0, Math.ceil((span.start * rate - frameLength / 2) / hopLength));
    const last = Math.min(available - 1, Math.floor((span.end * rate - frameLength / 2) / hopLength));
    if (last < first) return;
    const mfcc = computeMfcc(pcm.samples.subarray(first * hopLength, last * hopLength + frameLength));
    for (let t = 0; t < mfcc.frames; t++) {
      indexList.push(first + t);
      spanList.push(spanNumber);
      energies.push(mfcc.logEnergy[t]);
    }
    const kept = new Float32Array(mfcc.frames * DIMS);
    for (let t = 0; t < mfcc.frames; t++) {
      kept.set(mfcc.data.subarray(t * coefficients + FIRST_CEPSTRUM, (t + 1) * coefficients), t * DIMS);
    }
    chunks.push(kept);
  });
  const count = indexList.length;
  const features = new Float32Array(count * DIMS);
  let offset = 0;
  for (const chunk of chunks) {
    features.set(chunk, offset);
    offset += chunk.length;
  }
  const informative = new Uint8Array(count);
  const sortedEnergy = [...energies].sort((a, b) => a - b);
  const energyFloor = count > 0 ? sortedEnergy[Math.min(count - 1, Math.floor(count * quietFrameShare))] : 0;
  for (let i = 0; i < count; i++) informative[i] = energies[i] >= energyFloor ? 1 : 0;
  subtractInformativeMean(features, informative);
  return { index: Int32Array.from(indexList), features, informative, span: Int32Array.from(spanList) };
}

/** Cepstral mean normalisation over the file's informative speech: removes the fixed channel colouring. */
function subtractInformativeMean(features: Float32Array, informative: Uint8Array): void {
  const mean = new Float64Array(DIMS);
  let count = 0;
  for (let i = 0; i < informative.length; i++) {
    if (!informative[i]) continue;
    count++;
    for (let d = 0; d < DIMS; d++) mean[d] += features[i * DIMS + d];
  }
  if (count === 0) return;
  for (let d = 0; d < DIMS; d++) mean[d] /= count;
  for (let i = 0; i < informative.length; i++) {
    for (let d = 0; d < DIMS; d++) features[i * DIMS + d] -= mean[d];
  }
}

function gaussianOf(
  frames: SpeechFrames,
  from: number,
  to: number,
  labels?: Int32Array,
  label?: number,
): Gaussian {
  const mean = new Float64Array(DIMS);
  const square = new Float64Array(DIMS);
  let count = 0;
  for (let i = from; i < to; i++) {
    if (!frames.informative[i] || (labels && labels[i] !== label)) continue;
    count++;
    for (let d = 0; d < DIMS; d++) {
      const value = frames.features[i * DIMS + d];
      mean[d] += value;
      square[d] += value * value;
    }
  }
  const variance = new Float64Array(DIMS);
  for (let d = 0; d < DIMS; d++) {
    mean[d] = count > 0 ? mean[d] / count : 0;
    variance[d] = Math.max((count > 0 ? square[d] / count : 0) - mean[d] * mean[d], 0) + VARIANCE_FLOOR;
  }
  return { mean, variance, frames: count };
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
function absorbSmallClusters(windows: readonly Window[], labels: number[], minFrames: number): number[] {
  let result = [...labels];
  for (;;) {
    const sizes = clusterFrames(windows, result);
    if (sizes.size < 2) break;
    const [smallest, frames] = [...sizes.entries()].reduce((a, b) => (a[1] <= b[1] ? a : b));
    if (frames >= minFrames) break;
    const others = new Set([...sizes.keys()].filter((label) => label !== smallest));
    result = assignToNearest(windows, result, others);
  }
  return renumber(result);
}

function uniqueFrames(windows: readonly Window[]): number {
  let total = 0;
  let reached = -1;
  for (const window of windows) {
    const from = Math.max(window.from, reached);
    if (window.to > from) total += window.to - from;
    reached = Math.max(reached, window.to);
  }
  return total;
}

/** Each speech frame takes the label of the window whose centre is nearest within its span. */
function labelFramesFromWindows(
  frames: SpeechFrames,
  windows: readonly Window[],
  labels: readonly number[],
): Int32Array {
  const result = new Int32Array(frames.index.length);
  const centres = windows.map((window) => (window.from + window.to) / 2);
  let w = 0;
  for (let i = 0; i < result.length; i++) {
    // Windows are in time order; advance while the next centre is closer.
    while (w + 1 < windows.length && Math.abs(centres[w + 1] - i) <= Math.abs(centres[w] - i)) w++;
    result[i] = labels[w];
  }
  return result;
}

/**
 * One pass of model-based re-assignment: a Gaussian per speaker from the current labels, then each block of
 * frames goes to the speaker under which it is most likely. Corrects window-sized boundary errors.
 */
function resegment(frames: SpeechFrames, labels: Int32Array, blockFrames: number): Int32Array {
  const speakers = largest(labels) + 1;
  const total = labels.length;
  const models = Array.from({ length: speakers }, (_, s) => gaussianOf(frames, 0, total, labels, s));
  const result = new Int32Array(labels);
  for (let from = 0; from < total; from += blockFrames) {
    const to = Math.min(total, from + blockFrames);
    let best = labels[from];
    let bestScore = -Infinity;
    for (let s = 0; s < speakers; s++) {
      if (models[s].frames < DIMS * 2) continue;
      let score = 0;
      for (let i = from; i < to; i++) {
        if (!frames.informative[i]) continue;
        for (let d = 0; d < DIMS; d++) {
          const difference = frames.features[i * DIMS + d] - models[s].mean[d];
          score -=
            0.5 * (Math.log(models[s].variance[d]) + (difference * difference) / models[s].variance[d]);
        }
      }
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    result.fill(best, from, to);
  }
  return result;
}

/** Runs (within continuous speech) shorter than minFrames take the label of the longer neighbour. */
function smoothRuns(frames: SpeechFrames, labels: Int32Array, minFrames: number): void {
  for (let pass = 0; pass < 3; pass++) {
    const runs: Array<{ from: number; to: number; label: number }> = [];
    for (let i = 0; i < labels.length; i++) {
      const last = runs[runs.length - 1];
      const contiguous = last && frames.index[i] - frames.index[i - 1] <= 50;
      if (last && contiguous && last.label === labels[i]) last.to = i + 1;
      else runs.push({ from: i, to: i + 1, label: labels[i] });
    }
    let changed = false;
    runs.forEach((run, r) => {
      if (run.to - run.from >= minFrames) return;
      const before =
        r > 0 && frames.index[run.from] - frames.index[run.from - 1] <= 50 ? runs[r - 1] : undefined;
      const after =
        r + 1 < runs.length && frames.index[run.to] - frames.index[run.to - 1] <= 50
          ? runs[r + 1]
          : undefined;
      const neighbour =
        before && after
          ? before.to - before.from >= after.to - after.from
            ? before
            : after
          : (before ?? after);
      if (!neighbour || neighbour.label === run.label) return;
      labels.fill(neighbour.label, run.from, run.to);
      changed = true;
    });
    if (!changed) break;
  }
}

function buildTurns(
  frames: SpeechFrames,
  labels: Int32Array,
  spans: readonly TimeSpan[],
  joinGap: number,
): SpeakerTurn[] {
  // Speaker ids follow first appearance.
  const names = new Map<number, string>();
  const turns: SpeakerTurn[] = [];
  for (let i = 0; i < labels.length; i++) {
    if (!names.has(labels[i])) names.set(labels[i], speakerId(names.size));
    const speaker = names.get(labels[i]) as string;
    const span = spans[frames.span[i]];
    // Frame i covers centre ± half a hop; the first and last frames of a span stretch to the span edges.
    const start =
      i === 0 || frames.span[i - 1] !== frames.span[i]
        ? span.start
        : frameCentre(frames.index[i]) - HOP_SECONDS / 2;
    const end =
      i + 1 === labels.length || frames.span[i + 1] !== frames.span[i]
        ? span.end
        : frameCentre(frames.index[i]) + HOP_SECONDS / 2;
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
  return (
    (index * DEFAULT_MFCC_OPTIONS.hopLength + DEFAULT_MFCC_OPTIONS.frameLength / 2) /
    DEFAULT_MFCC_OPTIONS.sampleRate
  );
}

/** Math.max without spreading, which overflows the stack on an hour of frames. */
function largest(values: ArrayLike<number>): number {
  let result = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i] > result) result = values[i];
  return result;
}
