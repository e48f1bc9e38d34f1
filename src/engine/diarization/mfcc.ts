/**
 * Mel-frequency cepstral coefficients, written out in plain TypeScript so diarization needs no native code.
 * Pipeline per frame: pre-emphasis, Hamming window, power spectrum by FFT, triangular mel filterbank, log, DCT-II.
 */

export interface MfccOptions {
  sampleRate: number;
  /** Frame length in samples (25 ms at 16 kHz). */
  frameLength: number;
  /** Hop in samples (10 ms at 16 kHz). */
  hopLength: number;
  fftSize: number;
  melFilters: number;
  /** Cepstra kept, c0 included. */
  coefficients: number;
  lowHz: number;
  highHz: number;
  preEmphasis: number;
}

export const DEFAULT_MFCC_OPTIONS: MfccOptions = {
  sampleRate: 16000,
  frameLength: 400,
  hopLength: 160,
  fftSize: 512,
  melFilters: 40,
  coefficients: 20,
  lowHz: 20,
  highHz: 7600,
  preEmphasis: 0.97,
};

/** Row-major frames × dims matrix. */
export interface FeatureMatrix {
  readonly frames: number;
  readonly dims: number;
  readonly data: Float32Array;
}

export interface MfccResult extends FeatureMatrix {
  /** Natural log of the frame energy after windowing, one per frame (used to skip near-silent frames). */
  readonly logEnergy: Float32Array;
}

/** Frames that fit entirely in the signal: no padding at either end. */
export function frameCount(samples: number, frameLength: number, hopLength: number): number {
  return samples < frameLength ? 0 : 1 + Math.floor((samples - frameLength) / hopLength);
}

export function hzToMel(hz: number): number {
  return 2595 * Math.log10(1 + hz / 700);
}

export function melToHz(mel: number): number {
  return 700 * (10 ** (mel / 2595) - 1);
}

/** Triangular filters equally spaced on the mel scale; row f holds the weights of filter f over fftSize/2+1 bins. */
export function melFilterbank(
  options: Pick<MfccOptions, 'sampleRate' | 'fftSize' | 'melFilters' | 'lowHz' | 'highHz'>,
): Float32Array[] {
  const { sampleRate, fftSize, melFilters, lowHz, highHz } = options;
  const bins = fftSize / 2 + 1;
  const lowMel = hzToMel(lowHz);
  const highMel = hzToMel(highHz);
  const edgesHz: number[] = [];
  for (let i = 0; i < melFilters + 2; i++) {
    edgesHz.push(melToHz(lowMel + ((highMel - lowMel) * i) / (melFilters + 1)));
  }
  const binHz = sampleRate / fftSize;
  const filters: Float32Array[] = [];
  for (let f = 0; f < melFilters; f++) {
    const [left, centre, right] = [edgesHz[f], edgesHz[f + 1], edgesHz[f + 2]];
    const weights = new Float32Array(bins);
    for (let b = 0; b < bins; b++) {
      const hz = b * binHz;
      if (hz > left && hz < right) {
        weights[b] = hz <= centre ? (hz - left) / (centre - left) : (right - hz) / (right - centre);
      }
    }
    filters.push(weights);
  }
  return filters;
}

/** Orthonormal DCT-II basis, rows = output coefficients. */
export function dctMatrix(inputs: number, outputs: number): Float32Array[] {
  const rows: Float32Array[] = [];
  for (let k = 0; k < outputs; k++) {
    const row = new Float32Array(inputs);
    const scale = k === 0 ? Math.sqrt(1 / inputs) : Math.sqrt(2 / inputs);
    for (let n = 0; n < inputs; n++) {
      row[n] = scale * Math.cos((Math.PI * k * (n + 0.5)) / inputs);
    }
    rows.push(row);
  }
  return rows;
}

export function hammingWindow(length: number): Float32Array {
  const window = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    window[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (length - 1));
  }
  return window;
}

/** In-place iterative radix-2 complex FFT; twiddles are precomputed once per size. */
export class Fft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly reversed: Uint32Array;

  constructor(readonly size: number) {
    if (size < 2 || (size & (size - 1)) !== 0) {
      throw new RangeError(`FFT size must be a power of two, got ${size}`);
    }
    this.cos = new Float64Array(size / 2);
    this.sin = new Float64Array(size / 2);
    for (let i = 0; i < size / 2; i++) {
      this.cos[i] = Math.cos((-2 * Math.PI * i) / size);
      this.sin[i] = Math.sin((-2 * Math.PI * i) / size);
    }
    const bits = Math.log2(size);
    this.reversed = new Uint32Array(size);
    for (let i = 0; i < size; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.reversed[i] = r;
    }
  }

  transform(real: Float64Array, imag: Float64Array): void {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      const j = this.reversed[i];
      if (j > i) {
        [real[i], real[j]] = [real[j], real[i]];
        [imag[i], imag[j]] = [imag[j], imag[i]];
      }
    }
    for (let half = 1; half < n; half *= 2) {
      const step = n / (2 * half);
      for (let start = 0; start < n; start += 2 * half) {
        for (let k = 0; k < half; k++) {
          const wr = this.cos[k * step];
          const wi = this.sin[k * step];
          const a = start + k;
          const b = a + half;
          const tr = real[b] * wr - imag[b] * wi;
          const ti = real[b] * wi + imag[b] * wr;
          real[b] = real[a] - tr;
          imag[b] = imag[a] - ti;
          real[a] += tr;
          imag[a] += ti;
        }
      }
    }
  }
}

/** MFCCs of every whole frame in `samples`. */
export function computeMfcc(samples: Float32Array, overrides: Partial<MfccOptions> = {}): MfccResult {
  const options = { ...DEFAULT_MFCC_OPTIONS, ...overrides };
  const { frameLength, hopLength, fftSize, coefficients, preEmphasis } = options;
  if (fftSize < frameLength) throw new RangeError('fftSize must be at least frameLength');
  const frames = frameCount(samples.length, frameLength, hopLength);
  const bins = fftSize / 2 + 1;
  const filters = melFilterbank(options);
  // Only the non-zero span of each filter is visited.
  const spans = filters.map((weights) => {
    let first = 0;
    while (first < bins && weights[first] === 0) first++;
    let last = bins - 1;
    while (last > first && weights[last] === 0) last--;
    return { first, last, weights };
  });
  const dct = dctMatrix(filters.length, coefficients);
  const window = hammingWindow(frameLength);
  const fft = new Fft(fftSize);
  const real = new Float64Array(fftSize);
  const imag = new Float64Array(fftSize);
  const power = new Float64Array(bins);
  const logMel = new Float64Array(filters.length);
  const data = new Float32Array(frames * coefficients);
  const logEnergy = new Float32Array(frames);

  for (let t = 0; t < frames; t++) {
    const offset = t * hopLength;
    real.fill(0);
    imag.fill(0);
    let energy = 0;
    for (let i = 0; i < frameLength; i++) {
      const previous = offset + i > 0 ? samples[offset + i - 1] : 0;
      const value = (samples[offset + i] - preEmphasis * previous) * window[i];
      real[i] = value;
      energy += value * value;
    }
    logEnergy[t] = Math.log(energy + 1e-10);
    fft.transform(real, imag);
    for (let b = 0; b < bins; b++) power[b] = real[b] * real[b] + imag[b] * imag[b];
    for (let f = 0; f < spans.length; f++) {
      const { first, last, weights } = spans[f];
      let sum = 0;
      for (let b = first; b <= last; b++) sum += weights[b] * power[b];
      logMel[f] = Math.log(sum + 1e-10);
    }
    const row = t * coefficients;
    for (let k = 0; k < coefficients; k++) {
      const basis = dct[k];
      let sum = 0;
      for (let f = 0; f < basis.length; f++) sum += basis[f] * logMel[f];
      data[row + k] = sum;
    }
  }
  return { frames, dims: coefficients, data, logEnergy };
}

/** First-order regression deltas over ±`reach` frames, edges clamped (the usual HTK formula). */
export function deltas(features: FeatureMatrix, reach = 2): FeatureMatrix {
  const { frames, dims, data } = features;
  const out = new Float32Array(frames * dims);
  let denominator = 0;
  for (let n = 1; n <= reach; n++) denominator += 2 * n * n;
  for (let t = 0; t < frames; t++) {
    for (let d = 0; d < dims; d++) {
      let sum = 0;
      for (let n = 1; n <= reach; n++) {
        const ahead = Math.min(frames - 1, t + n);
        const behind = Math.max(0, t - n);
        sum += n * (data[ahead * dims + d] - data[behind * dims + d]);
      }
      out[t * dims + d] = sum / denominator;
    }
  }
  return { frames, dims, data: out };
}

/**
 * Cepstral mean (and optionally variance) normalisation over the given frame rows. Mean removal cancels a fixed
 * channel; variance scaling is optional because it also erases absolute spreads that help tell speakers apart.
 */
export function normalizeCepstra(
  features: FeatureMatrix,
  rows: ArrayLike<number>,
  scaleVariance: boolean,
): FeatureMatrix {
  const { frames, dims, data } = features;
  const mean = new Float64Array(dims);
  const square = new Float64Array(dims);
  const count = rows.length;
  for (let r = 0; r < count; r++) {
    const base = rows[r] * dims;
    for (let d = 0; d < dims; d++) {
      mean[d] += data[base + d];
      square[d] += data[base + d] * data[base + d];
    }
  }
  const scale = new Float64Array(dims).fill(1);
  for (let d = 0; d < dims; d++) {
    mean[d] = count > 0 ? mean[d] / count : 0;
    if (scaleVariance && count > 1) {
      const variance = square[d] / count - mean[d] * mean[d];
      scale[d] = 1 / Math.sqrt(Math.max(variance, 1e-8));
    }
  }
  const out = new Float32Array(frames * dims);
  for (let t = 0; t < frames; t++) {
    for (let d = 0; d < dims; d++) out[t * dims + d] = (data[t * dims + d] - mean[d]) * scale[d];
  }
  return { frames, dims, data: out };
}
