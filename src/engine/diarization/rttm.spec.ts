import { parseRttm, writeRttm } from './rttm';

describe('rttm', () => {
  it('reads SPEAKER lines and skips others', () => {
    const text =
      'SPKR-INFO x 1 <NA> <NA> <NA> unknown a <NA> <NA>\nSPEAKER sample 1 6.690 0.430 <NA> <NA> speaker90 <NA> <NA>\n\n';
    expect(parseRttm(text)).toEqual([
      { file: 'sample', start: 6.69, end: 6.69 + 0.43, speaker: 'speaker90' },
    ]);
  });

  it('rejects a line with a bad duration', () => {
    expect(() => parseRttm('SPEAKER f 1 1.0 abc <NA> <NA> s <NA> <NA>')).toThrow(/line 1/);
  });

  it('writes what it reads', () => {
    const turns = [
      { start: 0.5, end: 1.75, speaker: 'SPEAKER_00' },
      { start: 2, end: 3.125, speaker: 'SPEAKER_01' },
    ];
    const text = writeRttm('clip', turns);
    expect(text.split('\n')[0]).toBe('SPEAKER clip 1 0.500 1.250 <NA> <NA> SPEAKER_00 <NA> <NA>');
    expect(parseRttm(text).map(({ start, end, speaker }) => ({ start, end, speaker }))).toEqual(turns);
  });
});
