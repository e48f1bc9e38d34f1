import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import type { Server } from 'node:http';
import type { Response } from 'superagent';
import { postMultipart, type UploadAnswer, type UploadFile } from './early-refusal';
import { expectMatchesSpec } from './openapi-contract';
import { bearer, TestApp } from './test-app';

export interface TerminalState {
  status: 'completed' | 'failed';
  body: { data: Record<string, unknown> & { errorMessage: string | null; resultText: string | null } };
}

/**
 * Uploads a file (a path, or bytes with a name) with optional form fields; the response is checked against the
 * contract. The answer is read whenever it comes, also when the server refuses before the body and closes
 * while a large body is still being written (supertest failed with `write EPIPE` then): see postMultipart.
 */
export async function upload(
  t: TestApp,
  apiKey: string,
  file: string | UploadFile,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<UploadAnswer> {
  const response = await postMultipart(
    t.app.getHttpServer() as Server,
    '/v1/transcriptions',
    { ...bearer(apiKey), ...headers },
    fields,
    typeof file === 'string' ? { path: file } : file,
  );
  expectMatchesSpec(response, 'createTranscription');
  return response;
}

/** Polls the status endpoint until the job ends, within a deadline; returns the validated detail. */
export async function waitForTerminal(
  t: TestApp,
  apiKey: string,
  id: string,
  deadlineMs = 60_000,
): Promise<TerminalState> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const status = await t.http().get(`/v1/transcriptions/${id}/status`).set(bearer(apiKey));
    expectMatchesSpec(status, 'getTranscriptionStatus');
    if (status.body.data.status === 'completed' || status.body.data.status === 'failed') {
      const detail = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
      expectMatchesSpec(detail, 'getTranscription');
      return { status: status.body.data.status, body: detail.body };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`transcription ${id} did not finish within ${deadlineMs} ms`);
}

/** A supertest parser that keeps a binary body (an export, audio) as one Buffer: `.buffer(true).parse(asBuffer)`. */
export function asBuffer(response: Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => done(null, Buffer.concat(chunks)));
}

/** Reads a transcription's SSE stream to its end; the body is the raw `text/event-stream` text. */
export function readEventStream(
  t: TestApp,
  apiKey: string,
  id: string,
  headers: Record<string, string> = {},
) {
  return t
    .http()
    .get(`/v1/transcriptions/${id}/events`)
    .set(bearer(apiKey))
    .set(headers)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(null, text));
    });
}

/** The frames of an SSE body (blocks with a `data:` line), parsed. */
export function eventFrames(body: string): Array<{ status: string; progress: number }> {
  return eventBlocks(body).map((block) => block.data);
}

/** Each frame's `id:` and parsed `data:`, in order. */
export function eventBlocks(
  body: string,
): Array<{ id: string | null; data: { status: string; progress: number } }> {
  return body
    .split('\n\n')
    .map((block) => block.split('\n'))
    .filter((lines) => lines.some((line) => line.startsWith('data: ')))
    .map((lines) => ({
      id: lines.find((line) => line.startsWith('id: '))?.slice(4) ?? null,
      data: JSON.parse(lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '') as {
        status: string;
        progress: number;
      },
    }));
}

/** Audio made for a test with ffmpeg/sox in a temporary folder (never committed). */
export function generatedAudio(name: string, ffmpegArgs: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'stt-audio-'));
  const path = join(dir, name);
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...ffmpegArgs, path]);
  return path;
}

/** Inserts a transcription row directly (list/read tests that do not need the engine). */
export async function insertTranscription(
  t: TestApp,
  workspaceId: string,
  overrides: Partial<Transcription> = {},
): Promise<Transcription> {
  const repository = t.app.get(DataSource).getRepository(Transcription);
  return repository.save(
    repository.create({
      workspaceId,
      userId: null,
      model: 'standard',
      status: 'completed',
      progress: 100,
      originalFileName: 'meeting.wav',
      fileSize: 1000,
      mimeType: 'audio/wav',
      storageKey: null,
      duration: 4.2,
      language: null,
      detectedLanguage: 'en',
      vocabulary: [],
      speakerHints: {},
      resultText: 'Hello there. General Kenobi!',
      resultJson: {
        words: [
          { word: 'Hello', start: 0.1, end: 0.5, speaker: 'SPEAKER_00' },
          { word: 'there.', start: 0.5, end: 0.9, speaker: 'SPEAKER_00' },
          { word: 'General', start: 1.5, end: 2.0, speaker: 'SPEAKER_01' },
          { word: 'Kenobi!', start: 2.0, end: 2.6, speaker: 'SPEAKER_01' },
        ],
      },
      wordCount: 4,
      speakerCount: 2,
      costMicro: 250,
      completedAt: new Date(),
      ...overrides,
    }),
  );
}
