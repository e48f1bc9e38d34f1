/**
 * A callback the request that made a job asked for (Deepgram's `callback`, AssemblyAI's `webhook_url`), stored on
 * the job (`transcriptions.callback`): one delivery when the job ends, through the webhook delivery machinery
 * (docs/compatibility.md, "Per-job callbacks"). Defined here, below the transcriptions module, which stores it.
 */
export interface JobCallback {
  /** Whose shape the delivery takes: the route that asked for it. */
  api: 'deepgram' | 'assemblyai';
  /** Checked by the webhook target policy when asked for, and again at each attempt. */
  url: string;
  method: 'POST' | 'PUT';
  /** AssemblyAI's `webhook_auth_header_name`; null without one. */
  authHeaderName: string | null;
  /** Its value, sealed (SecretBox, label "job callback header"): never answered, never logged. */
  authHeaderValueSealed: string | null;
  /** Deepgram: the answer's options as asked (ListenAnswerOptions), for the body the synchronous answer would be. */
  answer?: Record<string, unknown>;
  /** Deepgram: SHA-256 (hex) of the audio, the body's `metadata.sha256`. */
  audioSha256?: string;
}

/** What the webhook deliveries read of a job with a callback (the transcriptions row). */
export interface CallbackJob {
  id: string;
  workspaceId: string;
  callback: JobCallback | null;
}
