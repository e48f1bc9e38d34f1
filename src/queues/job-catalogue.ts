/** Every queue, its job payload and the one place that sets job options. */
export const TRANSCRIPTION_QUEUE = 'transcriptions';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';

export interface TranscriptionJobData {
  transcriptionId: string;
  /** Whose next waiting job is handed over when this one ends (fair share; TranscriptionDispatcher.dispatch). */
  workspaceId: string;
  /**
   * The upload's X-Request-Id: the job runs in its logging context (every line carries it). Optional: jobs
   * added before the field existed have none.
   */
  requestId?: string | null;
  /**
   * The W3C trace context of the job's enqueueing (when the service traces): the worker's span continues the
   * upload's trace. Optional like `requestId`.
   */
  traceparent?: string | null;
}

export interface WebhookDeliveryJobData {
  deliveryId: string;
}
