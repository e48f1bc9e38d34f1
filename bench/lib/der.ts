/**
 * Diarization error rate, computed exactly on the elementary intervals between all segment boundaries:
 * DER = (missed speech + false alarm + speaker confusion) / total reference speech, each counted per speaker
 * (an interval where two reference speakers talk counts twice), as NIST md-eval does.
 * The reference→hypothesis speaker mapping is the one-to-one assignment that maximises matched time (Hungarian).
 */

/** Clips of the shared set with a timed RTTM reference beside them (same name, .rttm). */
export const RTTM_CLIPS = [
  'pyannote-audio/sample.wav',
  'pyannote-audio/dev00.wav',
  'pyannote-audio/tst00.wav',
  'picovoice-falcon/test.wav',
];

/** Multi-speaker clips without a timed reference: only the speaker count can be checked. */
export const COUNT_ONLY_CLIPS: Array<[string, number]> = [
  ['faster-whisper/stereo_diarization.wav', 2],
  ['picovoice-leopard/diarization_test.wav', 3],
];

export interface Turn {
  start: number;
  end: number;
  speaker: string;
}

export interface DerOptions {
  /** Seconds either side of every reference boundary that are not scored (md-eval's collar; 0.25 is customary). */
  collar: number;
  /** When true, stretches where two or more reference speakers talk are not scored. */
  skipOverlap: boolean;
}

export interface DerResult {
  /** Reference speaker time scored, in seconds (overlapped speech counts once per speaker). */
  total: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  der: number;
  /** Reference speaker → hypothesis speaker. Unmapped reference speakers are absent. */
  mapping: Record<string, string>;
}

interface Interval {
  start: number;
  end: number;
  reference: string[];
  hypothesis: string[];
}

function activeAt(turns: readonly Turn[], start: number, end: number): string[] {
  const speakers = new Set<string>();
  for (const turn of turns) if (turn.start < end && turn.end > start) speakers.add(turn.speaker);
  return [...speakers];
}

function unscoredZones(reference: readonly Turn[], collar: number): Array<[number, number]> {
  if (collar <= 0) return [];
  const zones: Array<[number, number]> = [];
  for (const turn of reference) {
    zones.push([turn.start - collar, turn.start + collar], [turn.end - collar, turn.end + collar]);
  }
  return zones;
}

/** Elementary intervals (no boundary inside) that are scored. */
function scoredIntervals(
  reference: readonly Turn[],
  hypothesis: readonly Turn[],
  options: DerOptions,
): Interval[] {
  const zones = unscoredZones(reference, options.collar);
  const cuts = new Set<number>();
  for (const turn of [...reference, ...hypothesis]) cuts.add(turn.start).add(turn.end);
  for (const [from, to] of zones) cuts.add(from).add(to);
  const points = [...cuts].sort((a, b) => a - b);
  const intervals: Interval[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [start, end] = [points[i], points[i + 1]];
    if (end - start <= 1e-9) continue;
    const middle = (start + end) / 2;
    if (zones.some(([from, to]) => middle > from && middle < to)) continue;
    const ref = activeAt(reference, start, end);
    if (options.skipOverlap && ref.length > 1) continue;
    const hyp = activeAt(hypothesis, start, end);
    if (ref.length === 0 && hyp.length === 0) continue;
    intervals.push({ start, end, reference: ref, hypothesis: hyp });
  }
  return intervals;
}

/**
 * Maximum-weight one-to-one assignment for a rows × columns weight matrix (Hungarian algorithm with potentials,
 * on the square matrix padded with zeros). Returns for each row its column, or -1.
 */
export function maximumAssignment(weights: number[][]): number[] {
  const rows = weights.length;
  const columns = rows === 0 ? 0 : weights[0].length;
  const n = Math.max(rows, columns);
  if (n === 0) return [];
  const cost = (r: number, c: number): number => (r < rows && c < columns ? -weights[r][c] : 0);
  // 1-based arrays as in the classic formulation; column 0 is a sentinel.
  const u = new Array<number>(n + 1).fill(0);
  const v = new Array<number>(n + 1).fill(0);
  const owner = new Array<number>(n + 1).fill(0);
  const way = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    owner[0] = i;
    let column = 0;
    const minimum = new Array<number>(n + 1).fill(Infinity);
    const used = new Array<boolean>(n + 1).fill(false);
    do {
      used[column] = true;
      const row = owner[column];
      let delta = Infinity;
      let next = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const reduced = cost(row - 1, j - 1) - u[row] - v[j];
        if (reduced < minimum[j]) {
          minimum[j] = reduced;
          way[j] = column;
        }
        if (minimum[j] < delta) {
          delta = minimum[j];
          next = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[owner[j]] += delta;
          v[j] -= delta;
        } else {
          minimum[j] -= delta;
        }
      }
      column = next;
    } while (owner[column] !== 0);
    do {
      const previous = way[column];
      owner[column] = owner[previous];
      column = previous;
    } while (column !== 0);
  }
  const result = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= n; j++) {
    const row = owner[j] - 1;
    if (row >= 0 && row < rows && j - 1 < columns) result[row] = j - 1;
  }
  return result;
}

export function diarizationErrorRate(
  reference: readonly Turn[],
  hypothesis: readonly Turn[],
  options: DerOptions,
): DerResult {
  const intervals = scoredIntervals(reference, hypothesis, options);
  const referenceSpeakers = [...new Set(reference.map((turn) => turn.speaker))];
  const hypothesisSpeakers = [...new Set(hypothesis.map((turn) => turn.speaker))];
  const overlap = referenceSpeakers.map(() => new Array<number>(hypothesisSpeakers.length).fill(0));
  for (const interval of intervals) {
    const duration = interval.end - interval.start;
    for (const r of interval.reference) {
      for (const h of interval.hypothesis) {
        overlap[referenceSpeakers.indexOf(r)][hypothesisSpeakers.indexOf(h)] += duration;
      }
    }
  }
  const assignment = maximumAssignment(overlap);
  const mapping: Record<string, string> = {};
  assignment.forEach((column, row) => {
    // A zero-overlap pairing is no mapping at all.
    if (column >= 0 && overlap[row][column] > 0) mapping[referenceSpeakers[row]] = hypothesisSpeakers[column];
  });

  let total = 0;
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  for (const interval of intervals) {
    const duration = interval.end - interval.start;
    const nRef = interval.reference.length;
    const nHyp = interval.hypothesis.length;
    const correct = interval.reference.filter(
      (r) => mapping[r] !== undefined && interval.hypothesis.includes(mapping[r]),
    ).length;
    total += duration * nRef;
    missed += duration * Math.max(0, nRef - nHyp);
    falseAlarm += duration * Math.max(0, nHyp - nRef);
    confusion += duration * (Math.min(nRef, nHyp) - correct);
  }
  const der = total > 0 ? (missed + falseAlarm + confusion) / total : 0;
  return { total, missed, falseAlarm, confusion, der, mapping };
}

/** Sums several clips' results into one overall DER (time-weighted, not a mean of ratios). */
export function combineDer(results: readonly DerResult[]): Omit<DerResult, 'mapping'> {
  const sum = (pick: (result: DerResult) => number): number =>
    results.reduce((acc, result) => acc + pick(result), 0);
  const total = sum((r) => r.total);
  const missed = sum((r) => r.missed);
  const falseAlarm = sum((r) => r.falseAlarm);
  const confusion = sum((r) => r.confusion);
  return {
    total,
    missed,
    falseAlarm,
    confusion,
    der: total > 0 ? (missed + falseAlarm + confusion) / total : 0,
  };
}
