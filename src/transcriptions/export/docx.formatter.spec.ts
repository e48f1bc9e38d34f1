import { strFromU8, unzipSync } from 'fflate';
import { formatDocx } from './docx.formatter';
import { transcriptionWith } from './export.fixtures';

async function documentXml(buffer: Buffer): Promise<string> {
  const entries = unzipSync(new Uint8Array(buffer));
  const xml = entries['word/document.xml'];
  expect(xml).toBeDefined();
  return strFromU8(xml);
}

/** The visible text of document.xml, paragraph by paragraph. */
function paragraphTexts(xml: string): string[] {
  return xml
    .split('</w:p>')
    .map((paragraph) =>
      Array.from(paragraph.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/gu), (match) => match[1]).join(''),
    )
    .filter((text) => text !== '');
}

describe('formatDocx', () => {
  it('writes a real .docx with title, metadata and one paragraph per speaker turn', async () => {
    const buffer = await formatDocx(transcriptionWith());
    expect(buffer.subarray(0, 2).toString('latin1')).toBe('PK');
    const texts = paragraphTexts(await documentXml(buffer));
    expect(texts[0]).toBe('Interview Müller.mp3');
    expect(texts).toEqual(
      expect.arrayContaining([
        'Created: 2025-03-04T10:00:00.000Z',
        'Duration: 00:00:21',
        'Language: de',
        'Model: premium',
        'Speakers: 2',
        'Words: 41',
        'Speaker 1 [00:00:00] Good morning and welcome to the show.',
        'Speaker 2 [00:00:13] It started in a garage in Zürich with two laptops and far too much coffee.',
      ]),
    );
  });

  it('makes the speaker bold and the timestamp grey', async () => {
    const xml = await documentXml(await formatDocx(transcriptionWith()));
    expect(xml).toMatch(/<w:b\/>[\s\S]{0,200}?Speaker 1 </u);
    expect(xml).toMatch(/<w:color w:val="808080"\/>[\s\S]{0,200}?\[00:00:04\] /u);
  });

  it('prints resultText when there are no words, and unknown metadata as "unknown"', async () => {
    const buffer = await formatDocx(
      transcriptionWith({
        words: [],
        resultText: 'Nur Text.\nZweite Zeile & <mehr>',
        duration: null,
        speakerCount: null,
      }),
    );
    const texts = paragraphTexts(await documentXml(buffer));
    expect(texts).toEqual(
      expect.arrayContaining([
        'Nur Text.',
        'Zweite Zeile &amp; &lt;mehr&gt;',
        'Duration: unknown',
        'Speakers: unknown',
      ]),
    );
  });
});
