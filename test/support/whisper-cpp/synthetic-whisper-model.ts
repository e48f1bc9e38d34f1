/**
 * The synthetic Whisper model the tests run whisper.cpp with (no real weights can reach this machine): a
 * TypeScript port of the `micro det` variant of make_synthetic_ggml_whisper.py (kept beside the shared
 * whisper-det-micro.bin in ../shared/models). The output is byte for byte the file that script writes with
 * NumPy, so what the README of ../shared/models says about it holds for the generated file too:
 *
 * - ggml Whisper layout with the real multilingual vocabulary size (51,865 tokens), state size 64, 2 heads,
 *   1 layer, f16, untrained weights (NumPy `default_rng(0)` normals: PCG64 + ziggurat, reproduced here);
 * - the decoder blocks' output projections are zero and the decoder positional embeddings are scaled token
 *   embeddings, so greedy decoding follows the positions: whisper.cpp detects `de` and outputs
 *   " w100 w200 w300" (timestamps 0–0.83, 0.83–1.66, 1.66–2.50 s) whatever the audio.
 *
 * It proves that an adapter loads a model, passes options, reads segments, token timestamps and the detected
 * language — never that anything is recognised.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ZIGGURAT_FI,
  ZIGGURAT_KI,
  ZIGGURAT_NOR_INV_R,
  ZIGGURAT_NOR_R,
  ZIGGURAT_WI,
} from './numpy-ziggurat-tables';

/** sha256 of the generated file; equal to the shared whisper-det-micro.bin (a unit test compares both). */
export const SYNTHETIC_WHISPER_MODEL_SHA256 =
  '6262013ad3d89dfc5af120f53d3aa9fd03946a51e1eadfb540ea338bd9e34fb8';

/** What whisper.cpp answers with this model, whatever the audio. */
export const SYNTHETIC_WHISPER_LANGUAGE = 'de';
export const SYNTHETIC_WHISPER_TEXT = ' w100 w200 w300';

/**
 * A variation of the model that answers differently, for tests that must tell two models apart (the premium
 * tier's German routing): the language its detection picks and the three word tokens it outputs. Only which
 * embeddings the positions point at changes; the random draws are the same, so the default variant is still
 * byte for byte the shared file.
 */
export interface SyntheticWhisperVariant {
  /** `de` (default) or `en`: what whisper.cpp's language detection answers. */
  language?: 'de' | 'en';
  /** Three regular token ids (below 50257); token n reads " wn". Default [100, 200, 300]. */
  words?: readonly [number, number, number];
}

/** The text a variant outputs, whatever the audio. */
export function syntheticWhisperText(variant: SyntheticWhisperVariant = {}): string {
  return (variant.words ?? DEFAULT_WORDS).map((token) => ` w${token}`).join('');
}

const DEFAULT_WORDS = [100, 200, 300] as const;
/** whisper.cpp's language index (its language table's order): the language token is SOT + 1 + index. */
const LANGUAGE_INDEX = { en: 0, de: 2 } as const;

/**
 * A variant's file in the same cache folder, generated once (atomic rename, as below). Its name carries the
 * variant, so different variants never share a file.
 */
export function syntheticWhisperVariantModel(
  variant: SyntheticWhisperVariant,
  cacheDir: string = path.join(os.tmpdir(), 'stt-test-models'),
): string {
  const words = variant.words ?? DEFAULT_WORDS;
  const target = path.join(
    cacheDir,
    `whisper-det-micro-${SYNTHETIC_WHISPER_MODEL_SHA256.slice(0, 12)}-${variant.language ?? 'de'}-${words.join('-')}.bin`,
  );
  if (fs.existsSync(target)) return target;
  fs.mkdirSync(cacheDir, { recursive: true });
  const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(temporary, syntheticWhisperModelBytes(variant));
  fs.renameSync(temporary, target);
  return target;
}

/**
 * The model file, generated on first use into a cache folder and reused by every later test (about 1 s to
 * generate, 8 MB). Concurrent jest workers may generate it at the same time: each writes its own temp file
 * and renames it into place, which is atomic, so nobody ever reads a half-written model and no lock is
 * needed. A cached file is reused only when its sha256 matches.
 */
export function syntheticWhisperModel(cacheDir: string = path.join(os.tmpdir(), 'stt-test-models')): string {
  const target = path.join(cacheDir, `whisper-det-micro-${SYNTHETIC_WHISPER_MODEL_SHA256.slice(0, 12)}.bin`);
  if (fs.existsSync(target) && sha256(fs.readFileSync(target)) === SYNTHETIC_WHISPER_MODEL_SHA256)
    return target;
  fs.mkdirSync(cacheDir, { recursive: true });
  const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
  writeSyntheticWhisperModel(temporary);
  fs.renameSync(temporary, target);
  return target;
}

/** Writes the model to `file` (overwriting it). */
export function writeSyntheticWhisperModel(file: string): void {
  fs.writeFileSync(file, syntheticWhisperModelBytes());
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// Dimensions of the `micro` size, multilingual vocabulary, f16 weights (as in the Python script).
const N_STATE = 64;
const N_HEAD = 2;
const N_LAYER = 1;
const N_VOCAB = 51865;
const N_AUDIO_CTX = 1500;
const N_TEXT_CTX = 448;
const N_MELS = 80;
const FTYPE_F16 = 1;
/** Regular BPE tokens in the file; whisper.cpp synthesises the special tokens after them. */
const N_REGULAR_TOKENS = 50257;
// Multilingual special token ids in whisper.cpp: language token = SOT + 1 + language index (de = 2).
const EOT = 50257;
const SOT = 50258;
const BEG = 50364;

type Init = 'rand' | 'ones' | 'zeros';

/** The whole file in memory (8 MB). */
export function syntheticWhisperModelBytes(variant: SyntheticWhisperVariant = {}): Buffer {
  const languageToken = SOT + 1 + LANGUAGE_INDEX[variant.language ?? 'de'];
  const [first, second, third] = variant.words ?? DEFAULT_WORDS;
  if (
    ![first, second, third].every(
      (token) => Number.isInteger(token) && token >= 0 && token < N_REGULAR_TOKENS,
    )
  )
    throw new Error('synthetic whisper words must be regular token ids');
  const rng = new NumpyDefaultRng(0);
  const out = new ByteWriter();
  const s = N_STATE;

  out.u32(0x67676d6c); // "ggml"
  for (const v of [
    N_VOCAB,
    N_AUDIO_CTX,
    s,
    N_HEAD,
    N_LAYER,
    N_TEXT_CTX,
    s,
    N_HEAD,
    N_LAYER,
    N_MELS,
    FTYPE_F16,
  ])
    out.i32(v);
  // Mel filters: flat 1/201 (NumPy divides in float32, Math.fround of the double quotient is the same value).
  out.i32(N_MELS);
  out.i32(201);
  out.f32s(new Float32Array(N_MELS * 201).fill(Math.fround(1 / 201)));
  out.i32(N_REGULAR_TOKENS);
  for (let i = 0; i < N_REGULAR_TOKENS; i++) {
    // Token 220 must be ' ': whisper.cpp looks it up to suppress blanks.
    const word = Buffer.from(i === 220 ? ' ' : ` w${i}`, 'utf8');
    out.i32(word.length);
    out.bytes(word);
  }

  // Draws happen in the script's order; zeros and ones draw nothing.
  const tensor = (name: string, shape: number[], f32 = false, init: Init = 'rand'): void => {
    const count = shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(count);
    if (init === 'ones') values.fill(1);
    else if (init === 'rand') for (let i = 0; i < count; i++) values[i] = rng.standardNormal() * 0.02;
    writeTensor(out, name, shape, values, !f32);
  };
  const ln = (prefix: string): void => {
    tensor(`${prefix}.weight`, [s], true, 'ones');
    tensor(`${prefix}.bias`, [s], true, 'zeros');
  };
  const attn = (prefix: string, zeroOut: boolean): void => {
    tensor(`${prefix}.query.weight`, [s, s]);
    tensor(`${prefix}.query.bias`, [s], true, 'zeros');
    tensor(`${prefix}.key.weight`, [s, s]);
    tensor(`${prefix}.value.weight`, [s, s]);
    tensor(`${prefix}.value.bias`, [s], true, 'zeros');
    tensor(`${prefix}.out.weight`, [s, s], false, zeroOut ? 'zeros' : 'rand');
    tensor(`${prefix}.out.bias`, [s], true, 'zeros');
  };
  const mlp = (prefix: string, zeroOut: boolean): void => {
    tensor(`${prefix}.mlp.0.weight`, [4 * s, s]);
    tensor(`${prefix}.mlp.0.bias`, [4 * s], true, 'zeros');
    tensor(`${prefix}.mlp.2.weight`, [s, 4 * s], false, zeroOut ? 'zeros' : 'rand');
    tensor(`${prefix}.mlp.2.bias`, [s], true, 'zeros');
  };

  tensor('encoder.positional_embedding', [N_AUDIO_CTX, s], true);
  tensor('encoder.conv1.weight', [s, N_MELS, 3]);
  tensor('encoder.conv1.bias', [s, 1], true, 'zeros');
  tensor('encoder.conv2.weight', [s, s, 3]);
  tensor('encoder.conv2.bias', [s, 1], true, 'zeros');
  for (let i = 0; i < N_LAYER; i++) {
    const p = `encoder.blocks.${i}`;
    ln(`${p}.mlp_ln`);
    mlp(p, false);
    ln(`${p}.attn_ln`);
    attn(`${p}.attn`, false);
  }
  ln('encoder.ln_post');

  // Token embeddings ~ N(0, 1/s); decoder position p carries 20× the embedding of the token wanted at p, so
  // with zeroed decoder block outputs the logits at p peak at that token. Position 0 answers language
  // detection; the prompt is [SOT, lang, transcribe] (0..2), then: timestamp 0, w100, w200, w300,
  // timestamp 125 (2.5 s), EOT, and EOT for every later position.
  const te = new Float32Array(N_VOCAB * s);
  const scale = Math.sqrt(s);
  for (let i = 0; i < te.length; i++) te[i] = rng.standardNormal() / scale;
  const pe = new Float32Array(N_TEXT_CTX * s);
  const targets = new Map<number, number>([
    [0, languageToken],
    [2, BEG + 0],
    [3, first],
    [4, second],
    [5, third],
    [6, BEG + 125],
    [7, EOT],
  ]);
  for (let p = 8; p < N_TEXT_CTX; p++) targets.set(p, EOT);
  for (const [p, token] of targets) for (let j = 0; j < s; j++) pe[p * s + j] = 20 * te[token * s + j]; // float32 product, as NumPy
  writeTensor(out, 'decoder.positional_embedding', [N_TEXT_CTX, s], pe, false);
  writeTensor(out, 'decoder.token_embedding.weight', [N_VOCAB, s], te, true);

  for (let i = 0; i < N_LAYER; i++) {
    const p = `decoder.blocks.${i}`;
    ln(`${p}.mlp_ln`);
    mlp(p, true);
    ln(`${p}.attn_ln`);
    attn(`${p}.attn`, true);
    ln(`${p}.cross_attn_ln`);
    attn(`${p}.cross_attn`, true);
  }
  ln('decoder.ln');
  return out.toBuffer();
}

/** ggml tensor record: dims count, name length, type (0 f32, 1 f16), dims innermost first, name, data. */
function writeTensor(
  out: ByteWriter,
  name: string,
  shape: number[],
  values: Float32Array,
  f16: boolean,
): void {
  const nameBytes = Buffer.from(name, 'utf8');
  out.i32(shape.length);
  out.i32(nameBytes.length);
  out.i32(f16 ? 1 : 0);
  for (const d of [...shape].reverse()) out.i32(d);
  out.bytes(nameBytes);
  if (f16) out.f16s(values);
  else out.f32s(values);
}

class ByteWriter {
  private readonly chunks: Buffer[] = [];

  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.chunks.push(b);
  }

  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.chunks.push(b);
  }

  bytes(b: Buffer): void {
    this.chunks.push(b);
  }

  f32s(values: Float32Array): void {
    const b = Buffer.alloc(values.length * 4);
    for (let i = 0; i < values.length; i++) b.writeFloatLE(values[i], i * 4);
    this.chunks.push(b);
  }

  f16s(values: Float32Array): void {
    const b = Buffer.alloc(values.length * 2);
    for (let i = 0; i < values.length; i++) b.writeUInt16LE(float32ToFloat16Bits(values[i]), i * 2);
    this.chunks.push(b);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE binary32 → binary16, round to nearest even (NumPy's float32 → float16 cast). */
export function float32ToFloat16Bits(value: number): number {
  f32Scratch[0] = value;
  const f = u32Scratch[0];
  const sign = (f >>> 16) & 0x8000;
  const exponent = f & 0x7f800000;
  const mantissa = f & 0x007fffff;
  if (exponent === 0x7f800000) return sign | 0x7c00 | (mantissa !== 0 ? 0x0200 | (mantissa >>> 13) : 0);
  if (exponent >= 0x47800000) return sign | 0x7c00; // too large: infinity
  if (exponent <= 0x38000000) {
    // Subnormal half (or zero): the result is value / 2^-24 rounded to an integer, half to even.
    if (exponent < 0x33000000) return sign;
    const shift = 126 - (exponent >>> 23);
    const full = 0x00800000 | mantissa;
    let h = full >>> shift;
    const rest = full - h * 2 ** shift;
    const half = 2 ** (shift - 1);
    if (rest > half || (rest === half && (h & 1) === 1)) h += 1; // 0x400 (smallest normal) is right
    return sign | h;
  }
  let h = ((exponent - 0x38000000) >>> 13) | (mantissa >>> 13);
  const low = mantissa & 0x1fff;
  if (low > 0x1000 || (low === 0x1000 && (h & 1) === 1)) h += 1; // a carry into the exponent is right
  return sign | h;
}

/**
 * NumPy's `np.random.default_rng(seed).standard_normal()` for a small integer seed: SeedSequence →
 * PCG64 (XSL-RR 128/64) → the ziggurat of numpy/random/src/distributions/distributions.c.
 */
export class NumpyDefaultRng {
  /** 128-bit LCG state and increment as eight 16-bit limbs, least significant first (exact in doubles). */
  private readonly state = new Float64Array(8);
  private readonly inc: Float64Array;
  private hi = 0;
  private lo = 0;

  constructor(seed: number) {
    const words = seedSequenceState(seed);
    const initState = (words[0] << 64n) | words[1];
    const initSeq = (words[2] << 64n) | words[3];
    this.inc = Float64Array.from(toLimbs(((initSeq << 1n) | 1n) & MASK_128));
    this.step();
    const added = (fromLimbs(this.state) + initState) & MASK_128;
    this.state.set(toLimbs(added));
    this.step();
  }

  /** The state as NumPy prints it in `bit_generator.state` (for tests). */
  get stateAndInc(): { state: bigint; inc: bigint } {
    return { state: fromLimbs(this.state), inc: fromLimbs(this.inc) };
  }

  standardNormal(): number {
    for (;;) {
      this.next64();
      const hi = this.hi;
      const lo = this.lo;
      const idx = lo & 0xff;
      const negative = ((lo >>> 8) & 1) === 1;
      // Bits 9..60 of the 64-bit draw: 23 from the low word, 29 from the high word.
      const rabs = (hi & 0x1fffffff) * 0x800000 + (lo >>> 9);
      let x = rabs * ZIGGURAT_WI[idx];
      if (negative) x = -x;
      if (rabs < ZIGGURAT_KI[idx]) return x;
      if (idx === 0) {
        for (;;) {
          const xx = -ZIGGURAT_NOR_INV_R * Math.log1p(-this.nextDouble());
          const yy = -Math.log1p(-this.nextDouble());
          if (yy + yy > xx * xx)
            return ((lo >>> 17) & 1) === 1 ? -(ZIGGURAT_NOR_R + xx) : ZIGGURAT_NOR_R + xx;
        }
      }
      if (
        (ZIGGURAT_FI[idx - 1] - ZIGGURAT_FI[idx]) * this.nextDouble() + ZIGGURAT_FI[idx] <
        Math.exp(-0.5 * x * x)
      )
        return x;
    }
  }

  nextDouble(): number {
    this.next64();
    return (this.hi * 0x200000 + (this.lo >>> 11)) / 9007199254740992;
  }

  /** Next 64-bit output as [high 32 bits, low 32 bits]. */
  nextUint64(): [number, number] {
    this.next64();
    return [this.hi, this.lo];
  }

  /** Advances and leaves the output in hi/lo (no allocation: hot loop). */
  private next64(): void {
    this.step();
    const s = this.state;
    const xHi = (((s[7] << 16) | s[6]) ^ ((s[3] << 16) | s[2])) >>> 0;
    const xLo = (((s[5] << 16) | s[4]) ^ ((s[1] << 16) | s[0])) >>> 0;
    let rot = s[7] >>> 10; // top 6 bits of the state
    let hi = xHi;
    let lo = xLo;
    if (rot >= 32) {
      [hi, lo] = [lo, hi];
      rot -= 32;
    }
    if (rot === 0) {
      this.hi = hi;
      this.lo = lo;
      return;
    }
    this.hi = ((hi >>> rot) | (lo << (32 - rot))) >>> 0;
    this.lo = ((lo >>> rot) | (hi << (32 - rot))) >>> 0;
  }

  /**
   * state = state × multiplier + inc (mod 2^128): schoolbook on 16-bit limbs, unrolled. Each partial sum stays
   * below 2^36, exact in a double. This is the hot loop (one step per draw, 3.4 M draws): it touches no global
   * (`>>> 0` instead of Math.floor), because global lookups are ~15× slower inside jest's vm context.
   */
  private step(): void {
    const st = this.state;
    const inc = this.inc;
    const s0 = st[0];
    const s1 = st[1];
    const s2 = st[2];
    const s3 = st[3];
    const s4 = st[4];
    const s5 = st[5];
    const s6 = st[6];
    const s7 = st[7];
    const a0 = s0 * M0 + inc[0];
    let a1 = s0 * M1 + s1 * M0 + inc[1];
    let a2 = s0 * M2 + s1 * M1 + s2 * M0 + inc[2];
    let a3 = s0 * M3 + s1 * M2 + s2 * M1 + s3 * M0 + inc[3];
    let a4 = s0 * M4 + s1 * M3 + s2 * M2 + s3 * M1 + s4 * M0 + inc[4];
    let a5 = s0 * M5 + s1 * M4 + s2 * M3 + s3 * M2 + s4 * M1 + s5 * M0 + inc[5];
    let a6 = s0 * M6 + s1 * M5 + s2 * M4 + s3 * M3 + s4 * M2 + s5 * M1 + s6 * M0 + inc[6];
    let a7 = s0 * M7 + s1 * M6 + s2 * M5 + s3 * M4 + s4 * M3 + s5 * M2 + s6 * M1 + s7 * M0 + inc[7];
    let c = (a0 / 0x10000) >>> 0;
    st[0] = a0 - c * 0x10000;
    a1 += c;
    c = (a1 / 0x10000) >>> 0;
    st[1] = a1 - c * 0x10000;
    a2 += c;
    c = (a2 / 0x10000) >>> 0;
    st[2] = a2 - c * 0x10000;
    a3 += c;
    c = (a3 / 0x10000) >>> 0;
    st[3] = a3 - c * 0x10000;
    a4 += c;
    c = (a4 / 0x10000) >>> 0;
    st[4] = a4 - c * 0x10000;
    a5 += c;
    c = (a5 / 0x10000) >>> 0;
    st[5] = a5 - c * 0x10000;
    a6 += c;
    c = (a6 / 0x10000) >>> 0;
    st[6] = a6 - c * 0x10000;
    a7 += c;
    st[7] = a7 % 0x10000;
  }
}

const MASK_128 = (1n << 128n) - 1n;
const [M0, M1, M2, M3, M4, M5, M6, M7] = toLimbs(0x2360ed051fc65da44385df649fccf645n);

function toLimbs(v: bigint): number[] {
  return Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(16 * i)) & 0xffffn));
}

function fromLimbs(limbs: ArrayLike<number>): bigint {
  return Array.from(limbs).reduceRight((acc, limb) => (acc << 16n) | BigInt(limb), 0n);
}

/** `np.random.SeedSequence(seed).generate_state(4, np.uint64)` for 0 ≤ seed < 2^32 (pool size 4). */
export function seedSequenceState(seed: number): bigint[] {
  const INIT_A = 0x43b0d7e5;
  const MULT_A = 0x931e8875;
  const INIT_B = 0x8b51f9dd;
  const MULT_B = 0x58f38ded;
  const MIX_MULT_L = 0xca01f9dd;
  const MIX_MULT_R = 0x4973f715;
  const entropy = [seed >>> 0];
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    let v = (value ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    v = Math.imul(v, hashConst) >>> 0;
    return (v ^ (v >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool = [0, 1, 2, 3].map((i) => hashmix(entropy[i] ?? 0));
  for (let src = 0; src < 4; src++)
    for (let dst = 0; dst < 4; dst++) if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));

  let hashB = INIT_B;
  const words32: number[] = [];
  for (let i = 0; i < 8; i++) {
    let v = (pool[i % 4] ^ hashB) >>> 0;
    hashB = Math.imul(hashB, MULT_B) >>> 0;
    v = Math.imul(v, hashB) >>> 0;
    words32.push((v ^ (v >>> 16)) >>> 0);
  }
  // Viewed as little-endian uint64: low word first.
  return [0, 1, 2, 3].map((k) => (BigInt(words32[2 * k + 1]) << 32n) | BigInt(words32[2 * k]));
}
