import { ApiError, SessionClient } from './session-client';

export interface UploadOptions {
  /** The audio, or null when `fields.audio_url` names it. */
  file: File | null;
  fields: Record<string, string>;
  onProgress: (fraction: number) => void;
}

function send(token: string | null, options: UploadOptions): Promise<XMLHttpRequest> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(options.fields)) if (value !== '') form.append(name, value);
    if (options.file) form.append('file', options.file);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/transcriptions');
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    // fetch has no upload progress; XMLHttpRequest does.
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) options.onProgress(event.loaded / event.total);
    };
    xhr.onload = () => resolve(xhr);
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The upload failed (network error).'));
    xhr.send(form);
  });
}

/** The 202 answer as sent: `data` is the created job. */
export type UploadAnswer = { data: { id: string } & Record<string, unknown> };

/** POST /v1/transcriptions with upload progress; one refresh-and-retry on 401 like SessionClient.request. */
export async function uploadTranscription(
  client: SessionClient,
  options: UploadOptions,
): Promise<UploadAnswer> {
  let xhr = await send(client.accessToken, options);
  if (xhr.status === 401) {
    const renewed = (await client.refresh()) ?? (await client.onExpired());
    if (renewed) {
      options.onProgress(0);
      xhr = await send(renewed.accessToken, options);
    }
  }
  let body: Partial<UploadAnswer> & { detail?: string; title?: string; type?: string } = {};
  try {
    body = JSON.parse(xhr.responseText) as typeof body;
  } catch {
    // not JSON: the status says enough
  }
  if (xhr.status !== 202 || !body.data) {
    throw new ApiError(
      xhr.status,
      body.type?.split('/').pop() ?? '',
      body.detail ?? body.title ?? `HTTP ${xhr.status}`,
    );
  }
  return { data: body.data };
}
