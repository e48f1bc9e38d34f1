import type { Schema } from '../../openapi/contract-types';
import type { ExportableTranscription } from './export.types';
import { buildTranscriptView } from './transcript-view';

/**
 * The full record as pretty-printed JSON. `words` keep the raw engine speaker ids (as in resultJson);
 * `segments` are the txt/docx paragraphs and carry the display label ("Speaker 1") or null.
 */
export function formatJson(transcription: ExportableTranscription): string {
  const view = buildTranscriptView(transcription);
  const document: Schema<'TranscriptExport'> = {
    id: transcription.id,
    originalFileName: transcription.originalFileName,
    model: transcription.model,
    language: transcription.language,
    detectedLanguage: transcription.detectedLanguage,
    duration: transcription.duration,
    speakerCount: transcription.speakerCount,
    wordCount: transcription.wordCount,
    createdOn: transcription.createdOn.toISOString(),
    completedAt: transcription.completedAt?.toISOString() ?? null,
    text: view.plainText,
    // The same words the API returns, confidence included where the recogniser gave one.
    words: transcription.words.map(({ word, start, end, speaker, confidence }) => ({
      word,
      start,
      end,
      speaker: speaker ?? null,
      ...(confidence !== undefined ? { confidence } : {}),
    })),
    segments: view.paragraphs.map((paragraph) => ({
      speaker: view.label(paragraph.speaker),
      start: paragraph.start,
      end: paragraph.end,
      text: paragraph.text,
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
