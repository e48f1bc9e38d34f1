import type { SpeakerTurn } from '../engine.types';

/** "SPEAKER_00", "SPEAKER_01", … */
export function speakerId(index: number): string {
  return `SPEAKER_${String(index).padStart(2, '0')}`;
}

/**
 * Sorts turns by start time and renames speakers by first appearance, whatever labels the diarizer used
 * internally, so ids are stable for one file.
 */
export function renumberByFirstAppearance<T extends string | number>(
  turns: ReadonlyArray<{ start: number; end: number; speaker: T }>,
): SpeakerTurn[] {
  const sorted = [...turns]
    .filter((turn) => turn.end > turn.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const names = new Map<T, string>();
  return sorted.map((turn) => {
    if (!names.has(turn.speaker)) names.set(turn.speaker, speakerId(names.size));
    return { start: turn.start, end: turn.end, speaker: names.get(turn.speaker) as string };
  });
}
