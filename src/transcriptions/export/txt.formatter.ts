import type { ExportableTranscription } from './export.types';
import { formatClock } from './timestamp';
import { buildTranscriptView } from './transcript-view';

/**
 * `[HH:MM:SS] Speaker 1: text` paragraphs separated by a blank line; a paragraph without a speaker keeps its
 * timestamp and drops the label. Without words the stored resultText is the whole file.
 */
export function formatTxt(transcription: ExportableTranscription): string {
  const view = buildTranscriptView(transcription);
  if (view.paragraphs.length === 0) {
    return view.plainText === '' ? '' : `${view.plainText}\n`;
  }
  const blocks = view.paragraphs.map((paragraph) => {
    const label = view.label(paragraph.speaker);
    return `[${formatClock(paragraph.start)}] ${label === null ? '' : `${label}: `}${paragraph.text}`;
  });
  return `${blocks.join('\n\n')}\n`;
}
