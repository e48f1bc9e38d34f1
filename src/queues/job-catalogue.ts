/** Every queue, its job payload and the one place that sets job options. */
export const TRANSCRIPTION_QUEUE = 'transcriptions';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';

export interface TranscriptionJobData {
  transcriptionId: string;
  /** Whose next waiting job is handed over when this one ends (fair share; TranscriptionQueue.dispatch). */
  workspaceId: string;
}

export interface WebhookDeliveryJobData {
  deliveryId: string;
}
