import type { Request } from 'express';
import { jsonBodyReader } from '../../common/http/json-body';
import { ProblemException } from '../../common/problem/problem.exception';
import type { FileStorage } from '../../storage/file-storage';
import { requestFingerprint } from '../idempotency.service';
import { assertDeclaredLengthWithinLimit, parseMultipartUpload, type StoredUpload } from './multipart-upload';
import type { TemporaryFiles } from './temporary-files';

/** The body's text fields (without `audio_url`) and where its audio is: the stored `file` part or a URL. */
export interface UploadBody {
  fields: Record<string, string>;
  file: StoredUpload | null;
  /** `audio_url` as sent; only a route that accepts it reads it apart from the other fields. */
  audioUrl: string | null;
}

export type AudioSource = { kind: 'file'; file: StoredUpload } | { kind: 'url'; url: string };

const readUrlRequestJson = jsonBodyReader({
  maxBytes: 64 * 1024,
  tooLarge: () =>
    new ProblemException('malformed-request', 'The JSON body exceeds 64 KB.', {}, { Connection: 'close' }),
  notJson: () => new ProblemException('malformed-request', 'The request body is not valid JSON.'),
  anyTopLevel: true,
});

/**
 * Refusals from the request's head alone: the content type (multipart, or JSON where `audio_url` is
 * accepted) and a declared Content-Length over the upload limit.
 */
export function checkUploadHead(request: Request, acceptsAudioUrl: boolean): void {
  const json = acceptsAudioUrl && Boolean(request.is('application/json'));
  if (!json && !request.is('multipart/form-data')) {
    throw new ProblemException(
      'unsupported-media-type',
      acceptsAudioUrl
        ? 'Upload the file as multipart/form-data, or send {"audio_url": …} as application/json.'
        : 'Upload the file as multipart/form-data.',
    );
  }
  assertDeclaredLengthWithinLimit(request);
}

/**
 * Reads the body: multipart (its `file` part streamed to storage and handed to `files` at once), or the
 * JSON form of a URL request.
 */
export async function readUploadBody(
  request: Request,
  storage: FileStorage,
  files: TemporaryFiles,
  acceptsAudioUrl: boolean,
): Promise<UploadBody> {
  const parsed =
    acceptsAudioUrl && request.is('application/json')
      ? { fields: await readJsonFields(request), file: null }
      : await parseMultipartUpload(request, storage);
  if (parsed.file) files.track(parsed.file);
  const { audio_url: audioUrl, ...otherFields } = parsed.fields;
  const body: UploadBody = acceptsAudioUrl
    ? { fields: otherFields, file: parsed.file, audioUrl: audioUrl ?? null }
    : { fields: parsed.fields, file: parsed.file, audioUrl: null };
  if (body.file && body.audioUrl !== null) {
    throw ProblemException.field('audio_url', 'send either the file part or audio_url, not both');
  }
  return body;
}

/** The audio the body names: its `file` part, or its `audio_url` (docs/decisions.md, "Transcribing from a URL"). */
export function audioSource(body: UploadBody, acceptsAudioUrl: boolean): AudioSource {
  const url = body.audioUrl?.trim();
  if (url === '') throw ProblemException.field('audio_url', 'audio_url must not be empty');
  if (!url && !body.file) {
    throw new ProblemException(
      'missing-file',
      acceptsAudioUrl
        ? "The multipart field `file` is missing (or send the audio's URL as `audio_url`)."
        : 'The multipart field `file` is missing.',
    );
  }
  return url ? { kind: 'url', url } : { kind: 'file', file: body.file as StoredUpload };
}

/**
 * What makes two uploads "the same" for an Idempotency-Key: the route and the fields, with the file's
 * content and name, or the URL as sent (a URL request is compared before anything is fetched).
 */
export function uploadFingerprint(route: string, body: UploadBody, source: AudioSource): string {
  return source.kind === 'url'
    ? requestFingerprint({ method: route, fields: { ...body.fields, audio_url: body.audioUrl } })
    : requestFingerprint({
        method: route,
        fields: body.fields,
        file: source.file.sha256,
        name: source.file.originalFileName,
      });
}

/**
 * The JSON form of the request (`{"audio_url": …, "model": …}`), as the same text fields as the multipart
 * form: strings as sent, numbers as their text, arrays and objects (vocabulary, metadata) as JSON.
 */
async function readJsonFields(request: Request): Promise<Record<string, string>> {
  const body = await readUrlRequestJson(request, request.res!);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ProblemException.validation({ formErrors: ['the JSON body must be an object'] });
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    fields[name] =
      typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return fields;
}
