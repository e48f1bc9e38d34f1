import { closeSync, openSync, readSync } from 'node:fs';
import type { SpeakerTurn, TimeSpan } from '../../engine/engine.types';
import type { EngineChoice } from '../../engine/registry/engine-descriptor';
import { ENGINE_REGISTRY } from '../../engine/engine-registry';
import { LIVE_SAMPLE_RATE } from './live-transcriber';

/** The most audio read and handed to the diarizer at once, so a long session is never held whole. */
const MAX_STRETCH_SECONDS = 60;

/**
 * Who spoke when in a session's received audio (raw 16 kHz PCM16 in `pcmPath`), with the tier's diarizer as
 * file jobs use it: the audio is fed in stretches, in time order, each with the utterances inside it as its
 * speech. Runs on the session's recognition thread once recognition is done.
 */
export async function diarizeSessionAudio(
  diarizer: EngineChoice,
  pcmPath: string,
  speech: readonly TimeSpan[],
): Promise<SpeakerTurn[]> {
  if (speech.length === 0) return [];
  const session = ENGINE_REGISTRY.diarizerOf(diarizer).create(diarizer.settings).begin({});
  const file = openSync(pcmPath, 'r');
  try {
    for (const stretch of stretchesOf(speech)) {
      const inside = speech.filter((span) => span.start >= stretch.start && span.end <= stretch.end);
      await session.add(readSamples(file, stretch), stretch.start, inside);
    }
  } finally {
    closeSync(file);
  }
  return session.finish();
}

/** Consecutive utterances grouped into stretches of at most MAX_STRETCH_SECONDS (a longer one stands alone). */
export function stretchesOf(speech: readonly TimeSpan[]): TimeSpan[] {
  const stretches: TimeSpan[] = [];
  for (const span of speech) {
    const last = stretches[stretches.length - 1];
    if (last && span.end - last.start <= MAX_STRETCH_SECONDS) last.end = Math.max(last.end, span.end);
    else stretches.push({ start: span.start, end: span.end });
  }
  return stretches;
}

function readSamples(file: number, stretch: TimeSpan): Float32Array {
  const first = Math.round(stretch.start * LIVE_SAMPLE_RATE);
  const count = Math.max(0, Math.round(stretch.end * LIVE_SAMPLE_RATE) - first);
  const bytes = Buffer.alloc(count * 2);
  const read = readSync(file, bytes, 0, bytes.length, first * 2);
  const samples = new Float32Array(Math.floor(read / 2));
  for (let index = 0; index < samples.length; index++) samples[index] = bytes.readInt16LE(index * 2) / 32768;
  return samples;
}
