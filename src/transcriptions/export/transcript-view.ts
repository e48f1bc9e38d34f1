import type { ExportableTranscription } from './export.types';
import { segmentParagraphs, type TranscriptParagraph } from './paragraph-segmenter';
import { createSpeakerLabeler, type SpeakerLabeler } from './speaker-labels';

/** What the paragraph-based formats (txt, docx, json) share. */
export interface TranscriptView {
  paragraphs: TranscriptParagraph[];
  label: SpeakerLabeler;
  /** resultText when present, else the words joined; what to print when there are no words. */
  plainText: string;
}

export function buildTranscriptView(transcription: ExportableTranscription): TranscriptView {
  const paragraphs = segmentParagraphs(transcription.words);
  const joined = paragraphs.map((paragraph) => paragraph.text).join(' ');
  return {
    paragraphs,
    label: createSpeakerLabeler(transcription.words, transcription.speakerNames),
    plainText: (transcription.resultText ?? joined).trim(),
  };
}
