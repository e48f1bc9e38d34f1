import type { SpeakerTurn } from '../engine.types';

/**
 * RTTM (NIST Rich Transcription Time Marked) reading and writing, SPEAKER lines only:
 * `SPEAKER <file> <channel> <onset> <duration> <NA> <NA> <speaker> <NA> <NA>`.
 */

export interface RttmTurn extends SpeakerTurn {
  file: string;
}

export function parseRttm(text: string): RttmTurn[] {
  const turns: RttmTurn[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const fields = line.trim().split(/\s+/);
    if (fields[0] !== 'SPEAKER') return;
    if (fields.length < 8) throw new Error(`RTTM line ${index + 1}: expected at least 8 fields`);
    const onset = Number(fields[3]);
    const duration = Number(fields[4]);
    if (!Number.isFinite(onset) || !Number.isFinite(duration) || duration < 0) {
      throw new Error(`RTTM line ${index + 1}: bad onset or duration`);
    }
    turns.push({ file: fields[1], start: onset, end: onset + duration, speaker: fields[7] });
  });
  return turns;
}

export function writeRttm(file: string, turns: readonly SpeakerTurn[]): string {
  return turns
    .map(
      (turn) =>
        `SPEAKER ${file} 1 ${turn.start.toFixed(3)} ${(turn.end - turn.start).toFixed(3)} <NA> <NA> ${turn.speaker} <NA> <NA>\n`,
    )
    .join('');
}
