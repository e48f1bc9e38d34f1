import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPORT_CONTROLS, exportQuery, metadataField } from './playground-fields';

describe('metadataField', () => {
  it('turns key=value lines into the JSON object, values may hold =', () => {
    expect(metadataField('ticket = T-1\n\nquery=a=b\n')).toBe('{"ticket":"T-1","query":"a=b"}');
    expect(metadataField('  \n')).toBe('');
  });
  it('names a line that is not key=value', () => {
    expect(() => metadataField('ticket')).toThrow('“ticket” is not key=value');
    expect(() => metadataField('=x')).toThrow('is not key=value');
  });
});

describe('exportQuery', () => {
  const controls = { ...DEFAULT_EXPORT_CONTROLS, maxLines: '1', speakerLabels: false, timestamps: false };
  it('sends each format the controls it reads', () => {
    expect(exportQuery('srt', controls)).toBe(
      'format=srt&max_chars_per_line=42&max_lines=1&max_cue_seconds=7&speaker_labels=false',
    );
    expect(exportQuery('txt', controls)).toBe('format=txt&timestamps=false&speaker_labels=false');
    expect(exportQuery('json', controls)).toBe('format=json');
  });
  it('leaves out an emptied number (the service default applies)', () => {
    expect(exportQuery('vtt', { ...controls, maxCharsPerLine: '' })).not.toContain('max_chars_per_line');
  });
});
