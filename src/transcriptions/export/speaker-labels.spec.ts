import { createSpeakerLabeler } from './speaker-labels';

describe('createSpeakerLabeler', () => {
  it('numbers speakers by first appearance, not by their engine id', () => {
    const label = createSpeakerLabeler([
      { speaker: 'SPEAKER_03' },
      { speaker: null },
      { speaker: 'SPEAKER_00' },
      { speaker: 'SPEAKER_03' },
      { speaker: '0' },
    ]);
    expect(label('SPEAKER_03')).toBe('Speaker 1');
    expect(label('SPEAKER_00')).toBe('Speaker 2');
    expect(label('0')).toBe('Speaker 3');
  });

  it('gives no label to words without a speaker or to ids it never saw', () => {
    const label = createSpeakerLabeler([{ speaker: '1' }]);
    expect(label(null)).toBeNull();
    expect(label('SPEAKER_09')).toBeNull();
  });

  it('labels a named speaker with its name; the others keep their numbers by first appearance', () => {
    const label = createSpeakerLabeler([{ speaker: 'B' }, { speaker: 'A' }, { speaker: 'constructor' }], {
      A: 'Alice',
    });
    // An id that is also an Object.prototype member is not mistaken for a name.
    expect([label('B'), label('A'), label('constructor')]).toEqual(['Speaker 1', 'Alice', 'Speaker 3']);
  });

  it("labels a multichannel transcript's words by their channel number, not by first appearance", () => {
    const label = createSpeakerLabeler([{ speaker: 'CHANNEL_2' }, { speaker: 'CHANNEL_1' }]);
    expect(label('CHANNEL_2')).toBe('Channel 2');
    expect(label('CHANNEL_1')).toBe('Channel 1');
  });
});
