import type { Diarizer, Pcm, SpeakerHints, SpeakerTurn, TimeSpan } from '../engine.types';

/**
 * Diarizes a decoded file by feeding it to a session stretch by stretch (time order, no overlap), each with the
 * speech spans inside it, as the pipeline does while it recognises. For benches and tests, which hold the whole
 * file anyway; `stretches` = [{ start: 0, end: duration }] feeds it in one piece.
 */
export async function diarizeInStretches(
  diarizer: Diarizer,
  pcm: Pcm,
  speech: readonly TimeSpan[],
  stretches: readonly TimeSpan[],
  hints: SpeakerHints,
): Promise<SpeakerTurn[]> {
  const session = diarizer.begin(hints);
  for (const stretch of stretches) {
    const from = Math.max(0, Math.round(stretch.start * pcm.sampleRate));
    const to = Math.min(pcm.samples.length, Math.round(stretch.end * pcm.sampleRate));
    if (to <= from) continue;
    const [start, end] = [from / pcm.sampleRate, to / pcm.sampleRate];
    const inside = speech
      .filter((span) => span.end > start && span.start < end)
      .map((span) => ({ start: Math.max(start, span.start), end: Math.min(end, span.end) }));
    await session.add(pcm.samples.subarray(from, to), start, inside);
  }
  return session.finish();
}

/** The whole file as one stretch. */
export function wholeFile(pcm: Pcm): TimeSpan[] {
  return [{ start: 0, end: pcm.samples.length / pcm.sampleRate }];
}
