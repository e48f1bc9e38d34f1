import type { Request } from 'express';

/**
 * The full path of the request without the query; inside mounted middleware `request.path` is relative. A
 * WebSocket upgrade is a bare IncomingMessage (no `originalUrl`): its `url` is the full path.
 */
export function requestPath(request: Pick<Request, 'url'> & { originalUrl?: string }): string {
  return ((request.originalUrl ?? request.url).split('?')[0] ?? '/').replace(/\/+$/, '') || '/';
}

/** The OpenAI-compatible route, whose errors are OpenAI-shaped even when raised before routing (rate limit). */
export const OPENAI_TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions';

/** Deepgram's pre-recorded route: the body is the audio itself, or JSON `{"url": …}` read by the route. */
export const DEEPGRAM_LISTEN_PATH = '/v1/listen';

/** The upload endpoints, exempt from JSON content-type and body handling. */
const UPLOAD_PATHS = new Set([
  '/v1/transcriptions',
  OPENAI_TRANSCRIPTIONS_PATH,
  DEEPGRAM_LISTEN_PATH,
  '/v2/upload',
  '/v2/transcript',
]);

/** POST /v1/transcriptions and its OpenAI- and Deepgram-compatible twins. */
export function isUploadRequest(request: Request): boolean {
  return request.method === 'POST' && UPLOAD_PATHS.has(requestPath(request));
}

/** AssemblyAI's API (`/v2/upload`, `/v2/transcript…`, and streaming's `/v3/token`, `/v3/ws`): its own auth header form and error shape. */
const ASSEMBLYAI_PATH_PREFIXES = ['/v2/', '/v3/'];

/** AssemblyAI's streaming WebSocket (Universal-Streaming). */
export const ASSEMBLYAI_STREAMING_PATH = '/v3/ws';

export function isAssemblyAiRequest(request: Pick<Request, 'url'> & { originalUrl?: string }): boolean {
  const path = requestPath(request);
  return ASSEMBLYAI_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
}
