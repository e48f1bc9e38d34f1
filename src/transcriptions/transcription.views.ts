import { microToEur } from '../common/money';
import type { Transcription } from './transcription.entity';

/** The summary form of the list (never resultJson, mimeType, userId or directoryId). */
export function toTranscriptionSummary(t: Transcription) {
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
    errorMessage: t.errorMessage,
    createdOn: t.createdOn,
    completedAt: t.completedAt,
  };
}

export function toTranscriptionDetail(t: Transcription) {
  return {
    ...toTranscriptionSummary(t),
    mimeType: t.mimeType,
    userId: t.userId,
    directoryId: t.workspaceId,
    resultJson: t.resultJson && t.resultJson.words.length > 0 ? t.resultJson : null,
    metadata: t.metadata,
    multichannel: t.channels !== null,
    channels: t.channels,
    estimatedCost: estimatedCostOf(t),
    audioDeletedAt: t.audioDeletedAt,
    transcriptDeletedAt: t.transcriptDeletedAt,
  };
}

export function toCreatedTranscription(t: Transcription) {
  return {
    id: t.id,
    status: t.status,
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
