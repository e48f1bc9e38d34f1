import {
  computeMfcc,
  dctMatrix,
  deltas,
  Fft,
  frameCount,
  hzToMel,
  melFilterbank,
  melToHz,
  DEFAULT_MFCC_OPTIONS,
} from './mfcc';

const RATE = 16000;

function tone(hz: number, seconds: number): Float32Array {
  return Float32Array.from(
    { length: Math.round(RATE * seconds) },
    (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / RATE),
  );
}

/** Centre frequency of mel filter f, from the same spacing melFilterbank uses. */
function centreHz(f: number): number {
  const { lowHz, highHz, melFilters } = DEFAULT_MFCC_OPTIONS;
  const [low, high] = [hzToMel(lowHz), hzToMel(highHz)];
  return melToHz(low + ((high - low) * (f + 1)) / (melFilters + 1));
}

describe('mfcc', () => {
  it('counts only whole frames: 1 + floor((N - L) / H)', () => {
    expect(frameCount(399, 400, 160)).toBe(0);
    expect(frameCount(400, 400, 160)).toBe(1);
    expect(frameCount(16000, 400, 160)).toBe(98);
    expect(computeMfcc(new Float32Array(16000)).frames).toBe(98);
  });

  it('maps hertz to mel and back', () => {
    expect(hzToMel(1000)).toBeCloseTo(1000, -1);
    expect(melToHz(hzToMel(3210))).toBeCloseTo(3210, 6);
  });

  it('puts a constant through the DCT into c0 only', () => {
    const dct = dctMatrix(40, 20);
    const constant = new Array<number>(40).fill(3);
    const out = dct.map((row) => row.reduce((sum, weight, n) => sum + weight * constant[n], 0));
    expect(out[0]).toBeCloseTo(3 * Math.sqrt(40), 4);
    for (const value of out.slice(1)) expect(Math.abs(value)).toBeLessThan(1e-5);
  });

  it('agrees with a direct DFT', () => {
    const fft = new Fft(16);
    const input = Array.from({ length: 16 }, (_, i) => Math.sin(i) + 0.3 * i);
    const [real, imag] = [Float64Array.from(input), new Float64Array(16)];
    fft.transform(real, imag);
    for (let k = 0; k < 16; k++) {
      let re = 0;
      let im = 0;
      input.forEach((x, n) => {
        re += x * Math.cos((-2 * Math.PI * k * n) / 16);
        im += x * Math.sin((-2 * Math.PI * k * n) / 16);
      });
      expect(real[k]).toBeCloseTo(re, 8);
      expect(imag[k]).toBeCloseTo(im, 8);
    }
  });

  it('builds triangular filters that peak at 1 on their centre bin region', () => {
    const filters = melFilterbank(DEFAULT_MFCC_OPTIONS);
    expect(filters).toHaveLength(40);
    for (const weights of filters) {
      expect(Math.max(...weights)).toBeGreaterThan(0.5);
      expect(Math.max(...weights)).toBeLessThanOrEqual(1);
    }
  });

  it.each([300, 1000, 3000, 6000])('lands a pure %i Hz tone in the mel band centred nearest to it', (hz) => {
    // With as many cepstra as filters the orthonormal DCT is invertible, giving back the log-mel energies.
    const options = { coefficients: 40, preEmphasis: 0 };
    const mfcc = computeMfcc(tone(hz, 0.5), options);
    const dct = dctMatrix(40, 40);
    const frame = 10;
    const logMel = Array.from({ length: 40 }, (_, f) =>
      dct.reduce((sum, row, k) => sum + row[f] * mfcc.data[frame * 40 + k], 0),
    );
    const loudest = logMel.indexOf(Math.max(...logMel));
    const nearest = Array.from({ length: 40 }, (_, f) => f).reduce((a, b) =>
      Math.abs(centreHz(a) - hz) <= Math.abs(centreHz(b) - hz) ? a : b,
    );
    expect(Math.abs(loudest - nearest)).toBeLessThanOrEqual(1);
  });

  it('gives silence a very low, constant energy and a tone a higher one', () => {
    const silent = computeMfcc(new Float32Array(8000));
    const loud = computeMfcc(tone(440, 0.5));
    expect(Math.max(...silent.logEnergy)).toBeLessThan(-20);
    expect(Math.min(...loud.logEnergy)).toBeGreaterThan(-5);
  });

  it('computes deltas of a ramp as its slope', () => {
    const frames = 10;
    const data = Float32Array.from({ length: frames }, (_, t) => 2 * t);
    const result = deltas({ frames, dims: 1, data });
    expect(result.data[5]).toBeCloseTo(2, 6);
  });
});
