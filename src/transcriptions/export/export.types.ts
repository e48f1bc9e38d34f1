import type { ModelTier } from '../../common/model-tier-catalogue';
import type { TranscriptWord } from '../../engine/engine.types';

/** What an export needs from a completed transcription; the caller maps its entity onto this. */
export interface ExportableTranscription {
  id: string;
  originalFileName: string;
  model: ModelTier;
  createdOn: Date;
  completedAt: Date | null;
  /** Seconds. */
  duration: number | null;
  language: string | null;
  detectedLanguage: string | null;
  resultText: string | null;
  speakerCount: number | null;
  wordCount: number | null;
  words: TranscriptWord[];
  /** Names given to speakers by raw speaker id; a named speaker is labelled with its name. */
  speakerNames?: Readonly<Record<string, string>>;
}

export const EXPORT_FORMATS = ['txt', 'srt', 'vtt', 'json', 'docx'] as const;

export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

export interface RenderedExport {
  /** Full media type, with `; charset=utf-8` for the text formats. */
  contentType: string;
  /** Sanitised download name, may contain non-ASCII letters; see buildContentDisposition. */
  fileName: string;
  body: Buffer;
}
