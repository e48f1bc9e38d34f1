import type { JobStatus } from '../logic/job-progress';
import type { TimedWord } from '../logic/word-index';

export interface TranscriptionSummary {
  id: string;
  model: string;
  status: JobStatus;
  progress: number;
  originalFileName: string;
  duration: number | null;
  language: string | null;
  createdOn: string;
}
export interface TranscriptionDetail extends TranscriptionSummary {
  detectedLanguage: string | null;
  resultText: string | null;
  wordCount: number | null;
  speakerCount: number | null;
  cost: number | null;
  errorMessage: string | null;
  resultJson: { words: TimedWord[] } | null;
  audioDeletedAt?: string | null;
}
export interface Page<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
}
export interface Vocabulary {
  id: string;
  name: string;
  words: string[];
  createdOn: string;
}
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  key?: string;
}
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  isActive: boolean;
  secret?: string;
  createdOn?: string;
}
export const EXPORT_FORMATS = ['txt', 'srt', 'vtt', 'json', 'docx'] as const;
export const MODELS = ['standard', 'premium', 'premium_jade'] as const;
