import type { Request } from 'express';
import { jsonBodyReader } from '../../common/http/json-body';
import { ProblemException } from '../../common/problem/problem.exception';
import type { FileStorage } from '../../storage/file-storage';
import { requestFingerprint } from '../idempotency.service';
import { assertDeclaredLengthWithinLimit, parseMultipartUpload, type StoredUpload } from './multipart-upload';
import { storeRawUpload } from './raw-upload';
import type { TemporaryFiles } from './temporary-files';

/** The body's text fields (without `audio_url`) and where its audio is: the stored `file` part or a URL. */
export interface UploadBody {
  fields: Record<string, string>;
  file: StoredUpload | null;
  /** `audio_url` as sent; only a route that accepts it reads it apart from the other fields. */
  audioUrl: string | null;
}

/** How a route's request carries the audio and its fields. */
export type BodyShape =
  /** A multipart form (the `file` part and text fields); with `acceptsAudioUrl`, JSON `{"audio_url": …, …}` too. */
  | { kind: 'form'; acceptsAudioUrl: boolean }
  /**
   * Deepgram's: the body is the audio itself (any content type but JSON) or JSON `{"url": …}`, and the fields
   * are the query string's parameters (a repeated one comma-joined, as a multipart `name[]` list is).
   */
  | { kind: 'raw' };

export type AudioSource = { kind: 'file'; file: StoredUpload } | { kind: 'url'; url: string };

const readUrlRequestJson = jsonBodyReader({
  maxBytes: 64 * 1024,
  tooLarge: () =>
    new ProblemException('malformed-request', 'The JSON body exceeds 64 KB.', {}, { Connection: 'close' }),
  notJson: () => new ProblemException('malformed-request', 'The request body is not valid JSON.'),
  anyTopLevel: true,
});

/**
 * Refusals from the request's head alone: the content type (multipart, or JSON where a URL is accepted; any
 * type for a raw body) and a declared Content-Length over the upload limit.
 */
export function checkUploadHead(request: Request, shape: BodyShape): void {
  if (shape.kind === 'form') {
    const json = shape.acceptsAudioUrl && Boolean(request.is('application/json'));
    if (!json && !request.is('multipart/form-data')) {
      throw new ProblemException(
        'unsupported-media-type',
        shape.acceptsAudioUrl
          ? 'Upload the file as multipart/form-data, or send {"audio_url": …} as application/json.'
          : 'Upload the file as multipart/form-data.',
      );
    }
  }
  assertDeclaredLengthWithinLimit(request);
}

/**
 * Reads the body: multipart (its `file` part streamed to storage and handed to `files` at once), the JSON
 * form of a URL request, or a raw body (the audio streamed to storage, the fields from the query string).
 */
export async function readUploadBody(
  request: Request,
  storage: FileStorage,
  files: TemporaryFiles,
  shape: BodyShape,
): Promise<UploadBody> {
  if (shape.kind === 'raw') return readRawBody(request, storage, files);
  const parsed =
    shape.acceptsAudioUrl && request.is('application/json')
      ? { fields: await readJsonFields(request), file: null }
      : await parseMultipartUpload(request, storage);
  if (parsed.file) files.track(parsed.file);
  const { audio_url: audioUrl, ...otherFields } = parsed.fields;
  const body: UploadBody = shape.acceptsAudioUrl
    ? { fields: otherFields, file: parsed.file, audioUrl: audioUrl ?? null }
    : { fields: parsed.fields, file: parsed.file, audioUrl: null };
  if (body.file && body.audioUrl !== null) {
    throw ProblemException.field('audio_url', 'send either the file part or audio_url, not both');
  }
  return body;
}

async function readRawBody(
  request: Request,
  storage: FileStorage,
  files: TemporaryFiles,
): Promise<UploadBody> {
  const fields = queryFields(request);
  if (request.is('application/json')) {
    const { url, ...others } = await readJsonFields(request);
    const unknown = Object.keys(others);
    if (unknown.length > 0) {
      throw ProblemException.field(
        unknown[0],
        `the JSON body holds only "url"; got ${JSON.stringify(unknown[0])}`,
      );
    }
    if (url === undefined) throw ProblemException.field('url', 'the JSON body must name the audio as "url"');
    return { fields, file: null, audioUrl: url };
  }
  return { fields, file: files.track(await storeRawUpload(request, storage)), audioUrl: null };
}

/** The query string's parameters as text fields; a repeated one (`keyterm=a&keyterm=b`) comma-joined. */
export function queryFields(request: Pick<Request, 'originalUrl'>): Record<string, string> {
  const query = request.originalUrl.split('?')[1] ?? '';
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(query)) {
    fields[name] = fields[name] === undefined ? value : `${fields[name]},${value}`;
  }
  return fields;
}

/** The audio the body names: its `file` part, or its `audio_url` (docs/decisions.md, "Transcribing from a URL"). */
export function audioSource(body: UploadBody, shape: BodyShape): AudioSource {
  const url = body.audioUrl?.trim();
  const urlField = shape.kind === 'raw' ? 'url' : 'audio_url';
  if (url === '') throw ProblemException.field(urlField, `${urlField} must not be empty`);
  if (!url && !body.file) {
    throw new ProblemException(
      'missing-file',
      shape.kind === 'raw' || shape.acceptsAudioUrl
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
