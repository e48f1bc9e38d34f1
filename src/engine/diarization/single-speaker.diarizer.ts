import type { DiarizationSession, Diarizer, SpeakerTurn, TimeSpan } from '../engine.types';

/**
 * Everyone is SPEAKER_00: one turn from the first to the last speech seen. For pipeline tests and
 * benchmarks that measure recognition alone (the real diarizers are tested on their own).
 */
export class SingleSpeakerDiarizer implements Diarizer {
  readonly name = 'single-speaker';

  begin(): DiarizationSession {
    let first: number | null = null;
    let last = 0;
    return {
      add: async (_samples: Float32Array, _offset: number, speech: readonly TimeSpan[]) => {
        if (speech.length === 0) return;
        first ??= speech[0].start;
        last = Math.max(last, speech[speech.length - 1].end);
      },
      finish: async (): Promise<SpeakerTurn[]> =>
        first === null ? [] : [{ start: first, end: last, speaker: 'SPEAKER_00' }],
    };
  }
}
