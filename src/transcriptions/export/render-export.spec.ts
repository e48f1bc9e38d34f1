import { EXPORT_FORMATS, isExportFormat } from './export.types';
import { transcriptionWith } from './export.fixtures';
import { renderExport } from './render-export';

describe('renderExport', () => {
  it.each([
    ['txt', 'text/plain; charset=utf-8'],
    ['srt', 'text/srt; charset=utf-8'],
    ['vtt', 'text/vtt; charset=utf-8'],
    ['json', 'application/json; charset=utf-8'],
    ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ] as const)('%s: media type %s and a name from the upload', async (format, contentType) => {
    const rendered = await renderExport(transcriptionWith(), format);
    expect(rendered.contentType).toBe(contentType);
    expect(rendered.fileName).toBe(`Interview Müller.${format}`);
    expect(rendered.body.length).toBeGreaterThan(0);
  });

  it('encodes text bodies as UTF-8', async () => {
    const rendered = await renderExport(transcriptionWith(), 'txt');
    expect(rendered.body.toString('utf8')).toContain('Zürich');
    expect(rendered.body.includes(Buffer.from('Zürich', 'utf8'))).toBe(true);
  });

  it('covers exactly the five formats openapi.yaml lists', () => {
    expect(EXPORT_FORMATS).toEqual(['txt', 'srt', 'vtt', 'json', 'docx']);
    expect(isExportFormat('srt')).toBe(true);
    expect(isExportFormat('pdf')).toBe(false);
    expect(isExportFormat(undefined)).toBe(false);
  });
});
