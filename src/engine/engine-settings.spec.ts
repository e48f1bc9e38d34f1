import { engineDeadlineMs } from './engine-settings';
import { formatHours } from './speech/audio-length.guard';

describe('engineDeadlineMs', () => {
  const timeout = { baseMs: 600_000, perAudioMinuteMs: 60_000 };

  it('is the base alone while the duration is unknown', () => {
    expect(engineDeadlineMs(timeout, null)).toBe(600_000);
  });

  it('grows by the allowance per minute of audio', () => {
    expect(engineDeadlineMs(timeout, 3 * 3600)).toBe(600_000 + 180 * 60_000);
    expect(engineDeadlineMs(timeout, 30)).toBe(630_000);
  });
});

describe('formatHours', () => {
  it.each([
    [12 * 3600, '12 h'],
    [5400, '1.5 h'],
    [1200, '20 min'],
    [9, '9 s'],
  ])('%d s → %s', (seconds, text) => expect(formatHours(seconds)).toBe(text));
});
