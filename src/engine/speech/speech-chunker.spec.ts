import { planChunks } from './speech-chunker';

const options = { paddingSeconds: 0.2, maxChunkSeconds: 10, breakSilenceSeconds: 2 };

describe('planChunks', () => {
  it('pads spans and clamps them to the file', () => {
    expect(planChunks([{ start: 0.1, end: 2 }], 2.1, options)).toEqual([{ start: 0, end: 2.1 }]);
  });

  it('merges spans separated by short silences up to the maximum length', () => {
    const chunks = planChunks(
      [
        { start: 1, end: 4 },
        { start: 4.5, end: 8 },
        { start: 8.5, end: 12 },
      ],
      20,
      options,
    );
    expect(chunks).toEqual([
      { start: 0.8, end: 8.2 },
      { start: 8.3, end: 12.2 },
    ]);
  });

  it('starts a new chunk after a long silence', () => {
    const chunks = planChunks(
      [
        { start: 1, end: 2 },
        { start: 5, end: 6 },
      ],
      10,
      options,
    );
    expect(chunks).toHaveLength(2);
  });

  it('cuts a span longer than the maximum into equal parts', () => {
    const chunks = planChunks([{ start: 0, end: 25 }], 25, { ...options, paddingSeconds: 0 });
    expect(chunks).toHaveLength(3);
    for (const chunk of chunks) expect(chunk.end - chunk.start).toBeCloseTo(25 / 3, 5);
  });

  it('returns no chunks without speech', () => {
    expect(planChunks([], 10, options)).toEqual([]);
  });
});
