import type { ExportableTranscription } from './export.types';
import { DEFAULT_EXPORT_OPTIONS, type TranscriptExportOptions } from './export-options';
import { formatClock } from './timestamp';
import { buildTranscriptView } from './transcript-view';

/**
 * `[HH:MM:SS] Speaker 1: text` paragraphs separated by a blank line; a paragraph without a speaker keeps its
 * timestamp and drops the label. `timestamps` / `speakerLabels` off drop the clock / the label from every
 * paragraph. Without words the stored resultText is the whole file.
 */
export function formatTxt(
  transcription: ExportableTranscription,
  options: TranscriptExportOptions = DEFAULT_EXPORT_OPTIONS.transcript,
): string {
  const view = buildTranscriptView(transcription);
  if (view.paragraphs.length === 0) {
    return view.plainText === '' ? '' : `${view.plainText}\n`;
  }
  const blocks = view.paragraphs.map((paragraph) => {
    const label = options.speakerLabels ? view.label(paragraph.speaker) : null;
    const clock = options.timestamps ? `[${formatClock(paragraph.start)}] ` : '';
    return `${clock}${label === null ? '' : `${label}: `}${paragraph.text}`;
  });
  return `${blocks.join('\n\n')}\n`;
}
