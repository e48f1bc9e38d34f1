import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import type { ExportableTranscription } from './export.types';
import { DEFAULT_EXPORT_OPTIONS, type TranscriptExportOptions } from './export-options';
import type { TranscriptParagraph } from './paragraph-segmenter';
import type { SpeakerLabeler } from './speaker-labels';
import { formatClock } from './timestamp';
import { buildTranscriptView } from './transcript-view';

const GREY = '808080';

function metadataLine(name: string, value: string): Paragraph {
  return new Paragraph({ children: [new TextRun({ text: `${name}: `, bold: true }), new TextRun(value)] });
}

function orUnknown(value: string | number | null): string {
  return value === null ? 'unknown' : String(value);
}

function metadataBlock(transcription: ExportableTranscription): Paragraph[] {
  const language = transcription.detectedLanguage ?? transcription.language;
  return [
    metadataLine('Created', transcription.createdOn.toISOString()),
    metadataLine('Completed', transcription.completedAt?.toISOString() ?? 'unknown'),
    metadataLine(
      'Duration',
      transcription.duration === null ? 'unknown' : formatClock(transcription.duration),
    ),
    metadataLine('Language', orUnknown(language)),
    metadataLine('Model', transcription.model),
    metadataLine('Speakers', orUnknown(transcription.speakerCount)),
    metadataLine('Words', orUnknown(transcription.wordCount)),
  ];
}

function turnParagraph(
  paragraph: TranscriptParagraph,
  label: SpeakerLabeler,
  options: TranscriptExportOptions,
): Paragraph {
  const name = options.speakerLabels ? label(paragraph.speaker) : null;
  const runs = name === null ? [] : [new TextRun({ text: `${name} `, bold: true })];
  if (options.timestamps) {
    runs.push(new TextRun({ text: `[${formatClock(paragraph.start)}] `, color: GREY }));
  }
  runs.push(new TextRun(paragraph.text));
  return new Paragraph({ children: runs, spacing: { before: 120, after: 120 } });
}

/** Without words, resultText is printed one paragraph per line it has. */
function bodyParagraphs(
  transcription: ExportableTranscription,
  options: TranscriptExportOptions,
): Paragraph[] {
  const view = buildTranscriptView(transcription);
  if (view.paragraphs.length > 0) {
    return view.paragraphs.map((paragraph) => turnParagraph(paragraph, view.label, options));
  }
  return view.plainText
    .split(/\n+/u)
    .filter((line) => line.trim() !== '')
    .map((line) => new Paragraph({ children: [new TextRun(line.trim())] }));
}

/**
 * Word document: the file name as title, a metadata block, then one paragraph per speaker turn, each opened
 * by its speaker and grey clock unless `speakerLabels` / `timestamps` are off.
 */
export async function formatDocx(
  transcription: ExportableTranscription,
  options: TranscriptExportOptions = DEFAULT_EXPORT_OPTIONS.transcript,
): Promise<Buffer> {
  const document = new Document({
    title: transcription.originalFileName,
    creator: 'transcription-service',
    sections: [
      {
        children: [
          new Paragraph({
            heading: HeadingLevel.TITLE,
            children: [new TextRun(transcription.originalFileName)],
          }),
          ...metadataBlock(transcription),
          new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Transcript')] }),
          ...bodyParagraphs(transcription, options),
        ],
      },
    ],
  });
  return Packer.toBuffer(document);
}
