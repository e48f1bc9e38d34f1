import { combineDer, diarizationErrorRate, maximumAssignment } from './der';

const noCollar = { collar: 0, skipOverlap: false };

describe('diarization error rate', () => {
  const reference = [
    { start: 0, end: 10, speaker: 'A' },
    { start: 10, end: 20, speaker: 'B' },
  ];

  it('is zero for a perfect answer whatever the labels are called', () => {
    const hypothesis = [
      { start: 0, end: 10, speaker: 'SPEAKER_01' },
      { start: 10, end: 20, speaker: 'SPEAKER_00' },
    ];
    const result = diarizationErrorRate(reference, hypothesis, noCollar);
    expect(result.der).toBe(0);
    expect(result.mapping).toEqual({ A: 'SPEAKER_01', B: 'SPEAKER_00' });
  });

  it('scores the one-speaker answer as confusion on the smaller speaker', () => {
    const result = diarizationErrorRate(reference, [{ start: 0, end: 20, speaker: 'X' }], noCollar);
    expect(result.confusion).toBeCloseTo(10, 9);
    expect(result.der).toBeCloseTo(0.5, 9);
  });

  it('separates missed speech and false alarm', () => {
    const hypothesis = [
      { start: 2, end: 10, speaker: 'a' },
      { start: 10, end: 25, speaker: 'b' },
    ];
    const result = diarizationErrorRate(reference, hypothesis, noCollar);
    expect(result.missed).toBeCloseTo(2, 9);
    expect(result.falseAlarm).toBeCloseTo(5, 9);
    expect(result.confusion).toBeCloseTo(0, 9);
    expect(result.der).toBeCloseTo(7 / 20, 9);
  });

  it('counts overlapped reference speech once per speaker, or skips it on request', () => {
    const overlapped = [
      { start: 0, end: 10, speaker: 'A' },
      { start: 5, end: 10, speaker: 'B' },
    ];
    const hypothesis = [{ start: 0, end: 10, speaker: 'x' }];
    const scored = diarizationErrorRate(overlapped, hypothesis, noCollar);
    expect(scored.total).toBeCloseTo(15, 9);
    expect(scored.missed).toBeCloseTo(5, 9);
    const skipped = diarizationErrorRate(overlapped, hypothesis, { collar: 0, skipOverlap: true });
    expect(skipped.total).toBeCloseTo(5, 9);
    expect(skipped.der).toBe(0);
  });

  it('does not score the collar around reference boundaries', () => {
    const hypothesis = [
      { start: 0, end: 10.2, speaker: 'a' },
      { start: 10.2, end: 20, speaker: 'b' },
    ];
    expect(diarizationErrorRate(reference, hypothesis, noCollar).der).toBeCloseTo(0.2 / 20, 9);
    const collared = diarizationErrorRate(reference, hypothesis, { collar: 0.25, skipOverlap: false });
    expect(collared.der).toBe(0);
    // 0.25 s each side of 0, 10 and 20 is removed: 20 - 0.25 - 0.5 - 0.25.
    expect(collared.total).toBeCloseTo(19, 9);
  });

  it('maps extra hypothesis speakers to nothing and counts them as confusion', () => {
    const hypothesis = [
      { start: 0, end: 10, speaker: 'a' },
      { start: 10, end: 15, speaker: 'b' },
      { start: 15, end: 20, speaker: 'c' },
    ];
    const result = diarizationErrorRate(reference, hypothesis, noCollar);
    expect(result.confusion).toBeCloseTo(5, 9);
    expect(Object.keys(result.mapping)).toHaveLength(2);
  });

  it('adds clips up by time, not by averaging ratios', () => {
    const a = diarizationErrorRate(reference, [{ start: 0, end: 20, speaker: 'x' }], noCollar);
    const b = diarizationErrorRate(
      [{ start: 0, end: 80, speaker: 'A' }],
      [{ start: 0, end: 80, speaker: 'x' }],
      noCollar,
    );
    expect(combineDer([a, b]).der).toBeCloseTo(10 / 100, 9);
  });
});

describe('maximumAssignment', () => {
  it('finds the best one-to-one pairing, not the greedy one', () => {
    // Greedy takes 9 (row 0 → col 0) and then 1; the optimum is 8 + 8.
    expect(
      maximumAssignment([
        [9, 8],
        [8, 1],
      ]),
    ).toEqual([1, 0]);
  });

  it('handles more columns than rows and more rows than columns', () => {
    expect(maximumAssignment([[1, 5, 2]])).toEqual([1]);
    expect(maximumAssignment([[1], [5], [2]])).toEqual([-1, 0, -1]);
  });
});
