import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  canTransition,
  isOpen,
  isTerminal,
  OPEN_STATUSES,
  statusIn,
  TERMINAL_STATUSES,
  TRANSITIONS,
} from './transcription-state';
import { TRANSCRIPTION_STATUSES } from './transcription.entity';

describe('transcription state', () => {
  it('splits every status into open or terminal, never both', () => {
    for (const status of TRANSCRIPTION_STATUSES) expect(isOpen(status)).toBe(!isTerminal(status));
    expect([...OPEN_STATUSES, ...TERMINAL_STATUSES].sort()).toEqual([...TRANSCRIPTION_STATUSES].sort());
  });

  it('allows each change only from the states it names', () => {
    expect(TRANSCRIPTION_STATUSES.filter((status) => canTransition(status, 'start'))).toEqual([
      'queued',
      'processing',
    ]);
    expect(TRANSCRIPTION_STATUSES.filter((status) => canTransition(status, 'handBack'))).toEqual([
      'processing',
    ]);
    for (const transition of ['complete', 'fail'] as const) {
      expect(TRANSCRIPTION_STATUSES.filter((status) => canTransition(status, transition))).toEqual([
        ...OPEN_STATUSES,
      ]);
    }
  });

  it('never leaves a terminal state', () => {
    for (const status of TERMINAL_STATUSES) {
      for (const transition of Object.keys(TRANSITIONS) as Array<keyof typeof TRANSITIONS>) {
        expect(canTransition(status, transition)).toBe(false);
      }
    }
  });

  it('writes the open filter as the partial index of open jobs states it (so the planner can use it)', () => {
    const migration = readFileSync(
      join(__dirname, '../../migrations/1795459672708-FairShareDispatch.ts'),
      'utf8',
    );
    expect(migration).toContain(`WHERE ${statusIn('status', OPEN_STATUSES)}`);
  });
});
