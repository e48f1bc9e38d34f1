import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { isUuid } from '../common/http/resource-id.pipe';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import type { Schema } from '../openapi/contract-types';
import type { RenderedExport } from '../transcriptions/export/export.types';
import { TRANSCRIPTION_STATUSES, type Transcription } from '../transcriptions/transcription.entity';
import { TranscriptionsService } from '../transcriptions/transcriptions.service';
import { UploadedAudioService } from '../transcriptions/uploaded-audio/uploaded-audio.service';
import type { StoredUpload } from '../transcriptions/upload/multipart-upload';
import {
  TranscriptionUploadService,
  type UploadRoute,
} from '../transcriptions/upload/transcription-upload.service';
import { AssemblyAiApiError } from './assemblyai-error';
import { JobCallbacks } from '../webhooks/job-callbacks.service';
import { readAssemblyAiTranscriptRequest, readAssemblyAiWebhook } from './assemblyai-transcript-request';
import {
  paragraphsOf,
  sentencesOf,
  toAssemblyAiTranscript,
  toListItem,
  wordSearchOf,
} from './assemblyai-transcript.view';

/** `/v2/upload/<id>`: the path of the upload_url this service answers. */
const UPLOAD_PATH = /^\/v2\/upload\/([0-9a-f-]{36})$/i;
const MAX_LIST_LIMIT = 100;

/** The base URL the caller reached this service at, for the URLs it is answered (upload_url, resource_url). */
export function callerBaseUrl(request: Request): string {
  return `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}

/**
 * AssemblyAI's `/v2` API over the normal jobs (docs/compatibility.md): an upload is stored until it is named by a
 * transcript request (UploadedAudioService); a transcript is an ordinary job created by the shared intake
 * (billing, limits, tiers, retention; listed by GET /v1/transcriptions) whose read-backs answer as it was asked.
 */
@Injectable()
export class AssemblyAiService {
  constructor(
    private readonly intake: TranscriptionUploadService,
    private readonly transcriptions: TranscriptionsService,
    private readonly uploads: UploadedAudioService,
    private readonly callbacks: JobCallbacks,
  ) {}

  async upload(principal: Principal, request: Request): Promise<Schema<'AssemblyAiUploadedFile'>> {
    const stored = await this.uploads.store(principal.workspaceId, request);
    return { upload_url: `${callerBaseUrl(request)}/v2/upload/${stored.id}` };
  }

  /** The transcript route of the shared intake: a JSON body naming the audio by URL, answered at once (queued). */
  private readonly route: UploadRoute<null> = {
    name: 'POST /v2/transcript',
    body: { kind: 'form', acceptsAudioUrl: true },
    keylessRepeat: 'new-request',
    isRetry: () => false,
    // The webhook is checked (the webhook target policy) before the audio is fetched or the job exists.
    readFields: async (fields, audioUrl) => {
      const { options } = readAssemblyAiTranscriptRequest(fields, audioUrl ?? '');
      const webhook = readAssemblyAiWebhook(fields);
      if (!webhook) return { options, asked: null };
      const callback = await this.callbacks.prepare({
        api: 'assemblyai',
        url: webhook.url,
        method: 'POST',
        authHeader: webhook.authHeader,
        fieldNames: {
          url: 'webhook_url',
          authHeaderName: 'webhook_auth_header_name',
          authHeaderValue: 'webhook_auth_header_value',
        },
      });
      return { options: { ...options, callback }, asked: null };
    },
    // MAX_AUDIO_DURATION_HOURS, checked by the intake, is this route's only limit (as POST /v1/transcriptions).
    checkDuration: () => undefined,
    ownAudio: (principal, url) => this.ownAudio(principal, url),
  };

  async create(principal: Principal, request: Request): Promise<Schema<'AssemblyAiTranscript'>> {
    if (!request.is('application/json')) {
      throw new AssemblyAiApiError(
        400,
        'Send the transcript request as application/json: {"audio_url": "…", …}.',
      );
    }
    const admitted = await this.intake.admit(principal, request, this.route);
    return this.view(await this.transcriptions.get(principal.workspaceId, admitted.transcriptionId));
  }

  async get(workspaceId: string, id: string): Promise<Schema<'AssemblyAiTranscript'>> {
    return this.view(await this.find(workspaceId, id));
  }

  /** The transcript with what its webhook's delivery got (`webhook_status_code`). */
  private async view(job: Transcription): Promise<Schema<'AssemblyAiTranscript'>> {
    const statusCode = job.callback ? await this.callbacks.statusCodeOf(job.id) : null;
    return toAssemblyAiTranscript(job, statusCode);
  }

  async list(
    workspaceId: string,
    query: Record<string, string>,
    base: string,
  ): Promise<Schema<'AssemblyAiTranscriptList'>> {
    for (const name of ['after_id', 'created_on', 'throttled_only']) {
      if (query[name] !== undefined && query[name] !== '' && query[name] !== 'false') {
        throw ProblemException.field(name, `${name} is not honoured here; page with before_id`);
      }
    }
    const limit = query.limit === undefined || query.limit === '' ? 10 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw ProblemException.field('limit', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
    }
    const status = query.status === 'error' ? 'failed' : query.status;
    if (
      status !== undefined &&
      status !== '' &&
      !(TRANSCRIPTION_STATUSES as readonly string[]).includes(status)
    ) {
      throw ProblemException.field('status', 'status must be queued, processing, completed or error');
    }
    const beforeId = query.before_id || undefined;
    if (beforeId !== undefined && !isUuid(beforeId))
      throw ProblemException.field('before_id', 'before_id must be a transcript id');
    const page = await this.transcriptions.list(workspaceId, {
      limit,
      ...(status ? { status: status as Transcription['status'] } : {}),
      ...(beforeId ? { cursor: beforeId } : {}),
    });
    const url = (params: Record<string, string | undefined>): string => {
      const search = new URLSearchParams(
        Object.entries({ ...query, ...params }).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      ).toString();
      return `${base}/v2/transcript${search ? `?${search}` : ''}`;
    };
    return {
      page_details: {
        limit,
        result_count: page.items.length,
        current_url: url({}),
        prev_url: page.hasMore && page.cursor ? url({ before_id: page.cursor }) : null,
        next_url: null,
      },
      transcripts: page.items.map((job) => toListItem(job, base)),
    };
  }

  /** Deletes the job as DELETE /v1/transcriptions/{id} does; answers it as it was, with its text gone. */
  async delete(principal: Principal, id: string): Promise<Schema<'AssemblyAiTranscript'>> {
    const job = await this.find(principal.workspaceId, id);
    const shown = await this.view(job);
    await this.transcriptions.delete(principal, id);
    return { ...shown, text: 'Deleted by user.', words: null, utterances: null };
  }

  async sentences(workspaceId: string, id: string): Promise<Schema<'AssemblyAiSentences'>> {
    return sentencesOf(await this.completed(workspaceId, id));
  }

  async paragraphs(workspaceId: string, id: string): Promise<Schema<'AssemblyAiParagraphs'>> {
    return paragraphsOf(await this.completed(workspaceId, id));
  }

  async wordSearch(
    workspaceId: string,
    id: string,
    words: string | undefined,
  ): Promise<Schema<'AssemblyAiWordSearch'>> {
    const queries = (words ?? '')
      .split(',')
      .map((word) => word.trim())
      .filter((word) => word !== '');
    if (queries.length === 0) throw ProblemException.field('words', 'words must name at least one word');
    if (queries.some((query) => query.split(/\s+/).length > 5)) {
      throw ProblemException.field('words', 'each search may hold at most five words');
    }
    return wordSearchOf(await this.completed(workspaceId, id), queries);
  }

  /** Captions through the export renderer; `chars_per_caption` is a one-line caption of at most that many characters. */
  async subtitles(
    workspaceId: string,
    id: string,
    format: string,
    charsPerCaption: string | undefined,
  ): Promise<RenderedExport> {
    if (format !== 'srt' && format !== 'vtt')
      throw ProblemException.notFound(`The subtitle format ${JSON.stringify(format).slice(0, 20)}`);
    await this.completed(workspaceId, id);
    const captions = charsPerCaption ? { max_chars_per_line: charsPerCaption, max_lines: '1' } : {};
    return this.transcriptions.export(workspaceId, id, format, { ...captions, speaker_labels: 'false' });
  }

  private async find(workspaceId: string, id: string): Promise<Transcription> {
    if (!isUuid(id)) throw ProblemException.notFound('The transcript');
    return this.transcriptions.get(workspaceId, id);
  }

  /** A transcript whose words can be read (AssemblyAI answers 400 for one not completed). */
  private async completed(workspaceId: string, id: string): Promise<Transcription> {
    const job = await this.find(workspaceId, id);
    if (job.status !== 'completed') {
      throw new AssemblyAiApiError(
        400,
        `Transcript is not ready: its status is ${job.status === 'failed' ? 'error' : job.status}.`,
      );
    }
    if (job.transcriptDeletedAt)
      throw new ProblemException('gone', 'The transcript was deleted by the retention policy.');
    return job;
  }

  /** An upload_url of this service names an upload of the caller's workspace (a copy for the job), or nothing. */
  private async ownAudio(principal: Principal, url: string): Promise<StoredUpload | null> {
    let path: string;
    try {
      path = new URL(url).pathname;
    } catch {
      return null;
    }
    const id = UPLOAD_PATH.exec(path)?.[1];
    if (!id) return null;
    const upload = await this.uploads.find(principal.workspaceId, id);
    if (!upload) {
      throw ProblemException.field(
        'audio_url',
        'audio_url names an upload that does not exist here or has expired (uploads last 24 hours)',
      );
    }
    return this.uploads.copyForJob(upload);
  }
}
