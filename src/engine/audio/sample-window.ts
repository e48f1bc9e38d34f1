import { SAMPLE_RATE } from './ffmpeg-decoder';

/**
 * The recent stretch of a decoded stream: blocks are appended as they are decoded and dropped once nothing
 * needs them, so a file of any length holds only the audio its pending chunks still need.
 */
export class SampleWindow {
  private readonly blocks: Float32Array[] = [];
  /** Sample index (from the start of the file) of the first retained block's first sample. */
  private firstSample = 0;
  private retained = 0;

  /** Samples appended so far, from the start of the file. */
  get totalSamples(): number {
    return this.firstSample + this.retained;
  }

  get totalSeconds(): number {
    return this.totalSamples / SAMPLE_RATE;
  }

  /** Samples held now (benchmarks and tests). */
  get retainedSamples(): number {
    return this.retained;
  }

  append(block: Float32Array): void {
    if (block.length === 0) return;
    this.blocks.push(block);
    this.retained += block.length;
  }

  /** A copy of [start, end) seconds; the part already dropped or not yet decoded is left out. */
  extract(startSeconds: number, endSeconds: number): Float32Array {
    const from = Math.max(this.firstSample, Math.floor(startSeconds * SAMPLE_RATE));
    const to = Math.min(this.totalSamples, Math.ceil(endSeconds * SAMPLE_RATE));
    const out = new Float32Array(Math.max(0, to - from));
    let blockStart = this.firstSample;
    for (const block of this.blocks) {
      const blockEnd = blockStart + block.length;
      if (blockEnd > from && blockStart < to) {
        const sliceFrom = Math.max(from, blockStart) - blockStart;
        const sliceTo = Math.min(to, blockEnd) - blockStart;
        out.set(block.subarray(sliceFrom, sliceTo), blockStart + sliceFrom - from);
      }
      if (blockEnd >= to) break;
      blockStart = blockEnd;
    }
    return out;
  }

  /** Forgets whole blocks that end before `seconds`. */
  dropBefore(seconds: number): void {
    const limit = Math.floor(seconds * SAMPLE_RATE);
    while (this.blocks.length > 0 && this.firstSample + this.blocks[0].length <= limit) {
      const dropped = this.blocks.shift() as Float32Array;
      this.firstSample += dropped.length;
      this.retained -= dropped.length;
    }
  }
}
