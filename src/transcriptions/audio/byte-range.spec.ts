import { MAX_RANGE_HEADER_LENGTH, parseByteRange } from './byte-range';

describe('parseByteRange (RFC 9110 single byte ranges)', () => {
  it.each([
    ['bytes=0-99', { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=100-', { kind: 'partial', range: { start: 100, end: 999 } }],
    ['bytes=-100', { kind: 'partial', range: { start: 900, end: 999 } }],
    ['bytes=-5000', { kind: 'partial', range: { start: 0, end: 999 } }],
    ['bytes=990-5000', { kind: 'partial', range: { start: 990, end: 999 } }],
    ['BYTES = 5 - 9', { kind: 'partial', range: { start: 5, end: 9 } }],
    [' bytes=5-9\t', { kind: 'partial', range: { start: 5, end: 9 } }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    [undefined, { kind: 'whole' }],
    ['', { kind: 'whole' }],
    ['bytes', { kind: 'whole' }],
    ['bytes=', { kind: 'whole' }],
    ['bytes=0-1,5-9', { kind: 'whole' }],
    ['bytes=0-1 x', { kind: 'whole' }],
    ['bytes=0 1-9', { kind: 'whole' }],
    ['items=0-9', { kind: 'whole' }],
    ['bytesx=0-9', { kind: 'whole' }],
    ['bytes=9-5', { kind: 'whole' }],
    ['bytes=-', { kind: 'whole' }],
  ])('%j of 1000 bytes', (header, expected) => {
    expect(parseByteRange(header, 1000)).toEqual(expected);
  });

  describe('hostile values (`bytes=0-` + 15,000 spaces + `x` used to take 170–280 ms of event loop)', () => {
    const hostile = `bytes=0-${' '.repeat(15_000)}x`;
    let execs: jest.SpyInstance;
    beforeEach(() => {
      execs = jest.spyOn(RegExp.prototype, 'exec');
    });
    afterEach(() => execs.mockRestore());

    it('runs no regular expression on the value (the backtracking pattern is gone)', () => {
      expect(parseByteRange('bytes=0-99', 1000)).toEqual({ kind: 'partial', range: { start: 0, end: 99 } });
      expect(parseByteRange(`bytes=0-${' '.repeat(150)}x`, 1000)).toEqual({ kind: 'whole' });
      expect(execs).not.toHaveBeenCalled();
    });

    it(`ignores a value over ${MAX_RANGE_HEADER_LENGTH} characters without reading it (whole file)`, () => {
      // A String object whose characters count their reads: an over-long value is refused on its length.
      let reads = 0;
      const counted = new Proxy(new String(hostile), {
        get(target, property, receiver) {
          if (property === 'charCodeAt' || property === 'charAt' || property === 'slice') reads++;
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as unknown as string;
      expect(parseByteRange(counted, 1000)).toEqual({ kind: 'whole' });
      expect(reads).toBe(0);
      expect(parseByteRange(hostile, 1000)).toEqual({ kind: 'whole' });
      expect(execs).not.toHaveBeenCalled();
    });

    it(`ignores an otherwise valid range padded past ${MAX_RANGE_HEADER_LENGTH} characters`, () => {
      const padded = `bytes=0-${' '.repeat(MAX_RANGE_HEADER_LENGTH)}99`;
      expect(parseByteRange(padded, 1000)).toEqual({ kind: 'whole' });
      const justFits = `bytes=0-${' '.repeat(MAX_RANGE_HEADER_LENGTH - 'bytes=0-99'.length)}99`;
      expect(justFits).toHaveLength(MAX_RANGE_HEADER_LENGTH);
      expect(parseByteRange(justFits, 1000)).toEqual({ kind: 'partial', range: { start: 0, end: 99 } });
    });
  });
});
