import { microToEur } from '../common/money';
import type { Schema, SerializesTo } from '../openapi/contract-types';
import { textOptionsOf, type Transcription } from './transcription.entity';

/** The summary form of the list (never resultJson, mimeType, userId or directoryId). */
export function toTranscriptionSummary(t: Transcription): SerializesTo<Schema<'Transcription'>> {
  return {
    id: t.id,
    model: t.model,
    status: t.status,
    progress: t.progress,
    originalFileName: t.originalFileName,
    fileSize: t.fileSize,
    duration: t.duration,
    language: t.language,
    detectedLanguage: t.detectedLanguage,
    resultText: t.resultText,
    wordCount: t.wordCount,
    speakerCount: t.speakerCount,
    cost: t.costMicro === null ? null : microToEur(t.costMicro),
    estimatedCost: estimatedCostOf(t),
    errorMessage: t.errorMessage,
    createdOn: t.createdOn,
    completedAt: t.completedAt,
  };
}

export function toTranscriptionDetail(t: Transcription): SerializesTo<Schema<'TranscriptionDetail'>> {
  return {
    ...toTranscriptionSummary(t),
    mimeType: t.mimeType,
    userId: t.userId,
    // The contract calls a workspace a "directory" in field names: directoryId is the workspace's id.
    directoryId: t.workspaceId,
    resultJson: t.resultJson && t.resultJson.words.length > 0 ? t.resultJson : null,
    metadata: t.metadata,
    speakerNames: t.speakerNames,
    ...textOptionFields(t),
    multichannel: t.channels !== null,
    channels: t.channels,
    audioDeletedAt: t.audioDeletedAt,
    transcriptDeletedAt: t.transcriptDeletedAt,
  };
}

/** The 202 answer of an upload, built from the job just saved: always `queued`, whatever a worker does next. */
export function toCreatedTranscription(t: Transcription): SerializesTo<Schema<'TranscriptionAccepted'>> {
  return {
    id: t.id,
    status: 'queued',
    model: t.model,
    originalFileName: t.originalFileName,
    createdOn: t.createdOn,
    progress: 0,
    estimatedCost: estimatedCostOf(t),
  };
}

/** EUR quoted at creation (0 on a free transcription); null when the upload stated no duration. */
function estimatedCostOf(t: Transcription): number | null {
  return t.estimatedCostMicro === null ? null : microToEur(t.estimatedCostMicro);
}

/** The text passes the job was asked for, named as the upload fields are (camelCase). */
function textOptionFields(t: Transcription) {
  const options = textOptionsOf(t);
  return {
    customSpelling: options.customSpelling,
    formatNumbers: options.formatNumbers,
    filterProfanity: options.filterProfanity,
    redactPii: options.redactPii !== null,
    redactPiiPolicies: options.redactPii?.policies ?? [],
    redactPiiSub: options.redactPii?.substitution ?? null,
    redactPiiAudio: options.redactPii?.audio ?? false,
  };
}
