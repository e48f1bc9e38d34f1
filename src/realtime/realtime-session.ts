import type { LiveSessionUsage } from './recognition/live-capacity';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawData, WebSocket } from 'ws';
import type { Principal } from '../common/principal/principal';
import { isRecord } from '../common/is-record';
import type { RealtimeConfig } from './realtime.config';
import type { RecognizedWord, SpeakerTurn, TimeSpan } from '../engine/engine.types';
import { joinWords } from '../engine/pipeline/transcript-assembly';
import type { Transcription } from '../transcriptions/transcription.entity';
import { LiveRecognition } from './recognition/live-recognition';
import type { LiveRecognitionSpec } from './recognition/live-recognition-messages';
import {
  heardSpeech,
  LIVE_SAMPLE_RATE,
  type LiveEvent,
  type LiveSettings,
} from './recognition/live-transcriber';
import { AudioConverter } from './realtime-audio-format';
import {
  endingErrorEvent,
  REALTIME_CLOSE_REASONS,
  RealtimeRequestError,
  RealtimeSessionEnd,
  serverEventText,
  type RealtimeErrorBody,
} from './realtime-errors';
import {
  applySessionUpdate,
  describeSession,
  sessionWallSeconds,
  type SessionConfig,
} from './realtime-session-config';
import type { LiveGrant, LiveSessionHandle, RealtimeSessionsService } from './realtime-sessions.service';
import { liveCredentialOf, type LiveCredential, type RealtimeCredentials } from './realtime-credentials';
import { SocketBackpressure } from './socket-backpressure';
import { rawText } from './websocket-text';

/**
 * A partial hypothesis after every this much speech. Below the promised 500 ms: audio arrives in appends (often
 * 100 ms), so a partial goes out with the append that crosses the mark, and the time between two varies by one
 * append plus the decoder's jitter (a 400 ms grid measured p95 502 ms at four sessions, docs/benchmarks.md).
 */
export const PARTIAL_INTERVAL_MS = 300;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Client events of OpenAI's conversation sessions, which a transcription session does not take. */
const CONVERSATION_EVENTS = new Set([
  'conversation.item.create',
  'conversation.item.delete',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'response.create',
  'response.cancel',
  'output_audio_buffer.clear',
]);

export interface RealtimeSessionDependencies {
  sessions: RealtimeSessionsService;
  config: RealtimeConfig;
  /** Whether the credential a session stands on still does (checked every REALTIME_CREDENTIAL_CHECK_MS). */
  credentials: RealtimeCredentials;
  /** The recognition thread's settings for a session's live settings. */
  recognitionSpec(live: LiveSettings): LiveRecognitionSpec;
  /** The longest utterance before it is committed regardless of turn detection. */
  maxUtteranceSeconds: number;
}

interface OpenItem {
  id: string;
}

/**
 * One WebSocket client's transcription session, speaking OpenAI's Realtime transcription protocol: client
 * events are handled one at a time in arrival order; recognition runs on its own thread and its events become
 * server events as they come. The session ends on the client's close or on a refusal (an `error` event, then a
 * close code); every end is settled by the one rule of live sessions (RealtimeSessionsService.end): what was
 * delivered is paid, the received audio stored, the transcription completed (or failed unbilled when a server
 * failure ended it before any text reached the client). A paid session receives only what it has reserved,
 * raising its reservation as audio arrives; its progress is recorded with every lease renewal, so a lost process
 * or a deletion settles from it.
 */
export class RealtimeSession implements LiveSessionHandle {
  private readonly logger = new Logger(RealtimeSession.name);
  private readonly sessionId = `sess_${randomBytes(12).toString('hex')}`;
  private converter: AudioConverter;
  private recognition: LiveRecognition | null = null;
  private recognitionFailed: string | null = null;
  private transcription: Transcription | null = null;
  /** What the session may spend (a free transcription or its reservation), and the audio that pays for. */
  private grant: LiveGrant | null = null;
  private allowanceSamples = Number.POSITIVE_INFINITY;
  /** A reservation being raised; the allowance a raise ahead of time was last tried at. */
  private extending: Promise<void> | null = null;
  private extendedAt = -1;
  /** Whether recognised text (a partial or a final) reached the client: the session then pays on every end. */
  private delivered = false;
  /** What the last recorded progress held: samples received and final words delivered. */
  private readonly recorded = { samples: 0, words: 0 };
  private recording: Promise<boolean> = Promise.resolve(true);
  private recordingInFlight = false;
  private vocabulary: string[] = [];
  private samples = 0;
  private uncommittedSamples = 0;
  /**
   * Commits sent to the thread and not yet answered. Until then every utterance it reports is of audio before
   * the commit, already taken off `uncommittedSamples`, which counts only what was appended since.
   */
  private commitsInFlight = 0;
  private readonly words: RecognizedWord[] = [];
  /** The utterances' spans (session seconds): the speech the diarizer looks at. */
  private readonly speech: TimeSpan[] = [];
  private item: OpenItem | null = null;
  private previousItemId: string | null = null;
  private utterancesSeen = 0;
  private readonly pcmPath = join(tmpdir(), `realtime-${randomBytes(8).toString('hex')}.pcm`);
  private pcm: WriteStream | null = null;
  private queue: Promise<void> = Promise.resolve();
  private readonly backpressure: SocketBackpressure;
  /** A message over the size limit was read: nothing after it is taken, the session ends once those before it are handled. */
  private refusedMessage = false;
  private ending: Promise<void> | null = null;
  private deleted = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private expiryTimer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private credentialTimer: NodeJS.Timeout | null = null;
  /** The credential the session stands on has ended: nothing more is delivered, what was delivered is paid. */
  private credentialEnded = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly principal: Principal,
    private config: SessionConfig,
    private readonly dependencies: RealtimeSessionDependencies,
  ) {
    this.converter = new AudioConverter(config.format);
    this.backpressure = new SocketBackpressure(dependencies.config.REALTIME_MAX_PENDING_BYTES, {
      pause: () => socket.pause(),
      resume: () => socket.resume(),
    });
  }

  /** The workspace the session belongs to (the process's per-workspace share counts it). */
  get workspaceId(): string {
    return this.principal.workspaceId;
  }

  /** Its recognition thread's reading for the process's LiveCapacityMeter, or null before it runs or once it ended. */
  usage(): Promise<LiveSessionUsage | null> {
    return this.recognition?.usage() ?? Promise.resolve(null);
  }

  private markEnded: () => void = () => undefined;
  /** Resolves once the session has ended and its transcription is stored. */
  readonly ended = new Promise<void>((resolve) => (this.markEnded = resolve));

  /** Opens the session and handles the client's events until it ends. */
  run(): void {
    this.socket.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    this.socket.on('close', () => void this.end(null));
    this.socket.on('error', () => void this.end(null));
    const wallSeconds = sessionWallSeconds(
      this.config,
      this.dependencies.config.REALTIME_MAX_SESSION_WALL_SECONDS,
    );
    this.expiryTimer = setTimeout(() => {
      void this.end(
        new RealtimeSessionEnd(
          'session_expired',
          `A session lasts at most ${wallSeconds} s from its open, whatever audio it received. What was received is kept.`,
        ),
      );
    }, wallSeconds * 1000);
    this.queue = this.open().catch((error: unknown) => this.crash(error));
  }

  /**
   * A message as the socket reads it: queued to be handled in order, its bytes counted until it is (reading
   * pauses above REALTIME_MAX_PENDING_BYTES). One over the size limit is refused as read, never queued: the
   * session ends once the messages before it are handled (none of them waits for recognition), and nothing
   * read after it is kept in memory.
   */
  private receive(data: RawData, isBinary: boolean): void {
    if (this.ending || this.refusedMessage) return;
    const size = Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
    const maxBytes = this.dependencies.config.REALTIME_MAX_MESSAGE_BYTES;
    if (size > maxBytes) {
      this.refusedMessage = true;
      const reason = new RealtimeSessionEnd(
        'message_too_large',
        `A message may be at most ${maxBytes} bytes; this one was ${size}. Send audio in smaller appends.`,
      );
      this.queue = this.queue.then(() => void this.end(reason));
      return;
    }
    this.backpressure.received(size);
    this.queue = this.queue
      .then(() => this.handleMessage(data, isBinary))
      .catch((error: unknown) => this.crash(error))
      .finally(() => this.backpressure.handled(size));
  }

  /** Ends the session now (server shutdown, capacity) with `reason`; resolves once it is stored. */
  stop(reason: RealtimeSessionEnd): Promise<void> {
    return this.end(reason);
  }

  /**
   * The transcription is being deleted (or is gone): nothing more is delivered, what was received and delivered
   * is recorded at once with the lease given up, so the deletion settles it (TranscriptionsService.delete).
   */
  transcriptionDeleted(): void {
    this.deleted = true;
    void this.record(true).catch(() => false);
    void this.end(
      new RealtimeSessionEnd(
        'transcription_deleted',
        "The session's transcription was deleted; what it received is billed when text was delivered, nothing is stored.",
      ),
    );
  }

  private async open(): Promise<void> {
    const { sessions } = this.dependencies;
    // Created first: whatever ends the session from here on finds a (possibly empty) file to store.
    this.pcm = createWriteStream(this.pcmPath);
    try {
      sessions.assertStreams(this.config.tier, 'model');
      this.vocabulary = await sessions.resolveVocabulary(this.principal.workspaceId, this.config);
    } catch (error) {
      if (error instanceof RealtimeRequestError) {
        throw new RealtimeSessionEnd('invalid_session', error.message, error.param);
      }
      throw error;
    }
    const opened = await sessions.open(this.principal, this.config, this);
    this.transcription = opened.transcription;
    this.grant = opened.grant;
    this.allowanceSamples = sessions.allowanceSeconds(opened.grant, this.config.tier) * LIVE_SAMPLE_RATE;
    if (this.ending) return;
    this.recognition = new LiveRecognition(this.dependencies.recognitionSpec(this.liveSettings()), {
      onEvents: (events) => this.onRecognition(events),
      onFailure: (message) => {
        this.recognitionFailed = message;
        void this.end(new RealtimeSessionEnd('server_error', 'Recognition failed; the session was closed.'));
      },
    });
    await this.recognition.ready;
    this.send({ type: 'session.created', session: this.describe() });
    this.touch();
    this.renewTimer = setInterval(() => void this.renew(), this.dependencies.sessions.leaseMs / 3);
    const credential = liveCredentialOf(this.principal);
    if (credential) {
      this.credentialTimer = setInterval(
        () => void this.checkCredential(credential),
        this.dependencies.config.REALTIME_CREDENTIAL_CHECK_MS,
      );
    }
  }

  /**
   * Ends the session once the credential it stands on has ended (the guide's rule: a sign-out, a revoked key, a
   * removed member end access at once). A check that cannot be made (the database away) keeps the session: the
   * next one decides.
   */
  private async checkCredential(credential: LiveCredential): Promise<void> {
    if (this.ending || this.credentialEnded) return;
    const live = await this.dependencies.credentials.isLive(credential).catch(() => true);
    if (live || this.ending) return;
    this.credentialEnded = true;
    void this.end(
      new RealtimeSessionEnd(
        'credential_ended',
        'The credential this session was opened with has ended (the API key revoked or expired, signed out, a new password, or the user removed from the workspace): the session is closed and what it delivered is paid.',
      ),
    );
  }

  private async handleMessage(data: RawData, isBinary: boolean): Promise<void> {
    if (this.ending) return;
    let eventId: string | null = null;
    try {
      if (isBinary) {
        throw new RealtimeRequestError('invalid_event', 'Send client events as JSON text messages.');
      }
      let event: unknown;
      try {
        event = JSON.parse(rawText(data));
      } catch {
        throw new RealtimeRequestError('invalid_json', 'The message is not valid JSON.');
      }
      if (!isRecord(event) || typeof event.type !== 'string') {
        throw new RealtimeRequestError(
          'invalid_event',
          'A client event is a JSON object with a string `type`.',
          'type',
        );
      }
      eventId = typeof event.event_id === 'string' ? event.event_id : null;
      await this.handleEvent(event as Record<string, unknown> & { type: string });
    } catch (error) {
      if (!(error instanceof RealtimeRequestError)) throw error;
      this.sendError({
        type: 'invalid_request_error',
        code: error.code,
        message: error.message,
        param: error.param,
        event_id: eventId,
      });
    }
  }

  private async handleEvent(event: Record<string, unknown> & { type: string }): Promise<void> {
    switch (event.type) {
      case 'session.update':
        await this.update(event.session);
        return;
      case 'input_audio_buffer.append':
        // Waits only when the reservation is used up and must be raised before the audio is taken.
        await this.append(event.audio);
        return;
      case 'input_audio_buffer.commit':
        this.commit(typeof event.event_id === 'string' ? event.event_id : null);
        return;
      case 'input_audio_buffer.clear':
        this.recognition?.clear();
        this.uncommittedSamples = 0;
        this.item = null;
        this.send({ type: 'input_audio_buffer.cleared' });
        return;
      default:
        throw new RealtimeRequestError(
          CONVERSATION_EVENTS.has(event.type) ? 'unsupported_event' : 'invalid_event',
          CONVERSATION_EVENTS.has(event.type)
            ? `${event.type} belongs to conversation sessions; this is a transcription session.`
            : `Unknown client event type ${JSON.stringify(event.type)}.`,
          'type',
        );
    }
  }

  private async update(session: unknown): Promise<void> {
    const next = applySessionUpdate(this.config, session);
    if (this.samples > 0) {
      if (JSON.stringify(next.format) !== JSON.stringify(this.config.format)) {
        throw RealtimeRequestError.invalidValue(
          'session.audio.input.format',
          'The audio format cannot change once audio was received.',
        );
      }
      if (next.tier !== this.config.tier) {
        throw RealtimeRequestError.invalidValue(
          'session.audio.input.transcription.model',
          'The model cannot change once audio was received (the session is billed at one tier).',
        );
      }
    }
    const { sessions } = this.dependencies;
    sessions.assertStreams(next.tier, 'session.audio.input.transcription.model');
    const vocabulary = await sessions.resolveVocabulary(this.principal.workspaceId, next);
    if (next.tier !== this.config.tier && this.grant) {
      this.allowanceSamples = sessions.allowanceSeconds(this.grant, next.tier) * LIVE_SAMPLE_RATE;
    }
    this.config = next;
    this.vocabulary = vocabulary;
    this.converter = new AudioConverter(next.format);
    this.recognition?.configure(this.liveSettings());
    this.send({ type: 'session.updated', session: this.describe() });
  }

  private async append(audio: unknown): Promise<void> {
    if (typeof audio !== 'string' || audio.length % 4 !== 0 || !BASE64.test(audio)) {
      throw RealtimeRequestError.invalidValue(
        'audio',
        '`audio` must be base64-encoded audio in the session format.',
      );
    }
    const recognition = this.recognition;
    if (!recognition) return;
    let samples = this.converter.convert(Buffer.from(audio, 'base64'));
    const { REALTIME_MAX_BUFFER_SECONDS: maxBuffer, REALTIME_MAX_LAG_SECONDS: maxLag } =
      this.dependencies.config;
    if (recognition.backlog.bufferedSamples + samples.length > maxBuffer * LIVE_SAMPLE_RATE) {
      // Refused whole, before it is stored or billed: the client learns exactly which audio was taken.
      void this.end(
        new RealtimeSessionEnd(
          'input_audio_buffer_full',
          `This append would hold more than ${maxBuffer} s of audio ahead of recognition (${recognition.backlog.bufferedSeconds.toFixed(1)} s were waiting); send at most real time once ahead. The append was not taken; what was received before it is recognised and kept.`,
        ),
      );
      return;
    }
    await this.coverAllowance(this.samples + samples.length);
    const limit = this.limitSamples();
    const ends = this.samples + samples.length >= limit.samples;
    if (ends) samples = samples.subarray(0, Math.max(0, limit.samples - this.samples));
    if (samples.length > 0) {
      this.pcm?.write(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
      this.samples += samples.length;
      this.uncommittedSamples += samples.length;
      recognition.append(samples.slice());
      this.recordEvery();
    }
    if (ends) {
      void this.end(limit.reason);
      return;
    }
    if (recognition.backlog.lagSeconds(performance.now()) > maxLag) {
      void this.end(
        new RealtimeSessionEnd(
          'recognition_lagging',
          `Recognition fell more than ${maxLag} s behind real time (this server is overloaded). What was recognised is kept.`,
        ),
      );
    }
  }

  /**
   * A paid session's reservation raised before `samples` would pass what it covers, and ahead of time (not
   * waited for) once less than half a window is left, so a client sending in real time never waits on it.
   */
  private async coverAllowance(samples: number): Promise<void> {
    if (!this.grant || this.grant.usesFreeTranscription || !Number.isFinite(this.allowanceSamples)) return;
    const halfWindow = (this.dependencies.config.REALTIME_RESERVATION_SECONDS * LIVE_SAMPLE_RATE) / 2;
    if (samples >= this.allowanceSamples) {
      await this.extendAllowance();
    } else if (samples >= this.allowanceSamples - halfWindow && this.extendedAt !== this.allowanceSamples) {
      this.extendedAt = this.allowanceSamples;
      this.extendAllowance().catch((error: unknown) =>
        this.logger.warn(`Realtime session ${this.sessionId}: reservation not raised: ${String(error)}`),
      );
    }
  }

  private extendAllowance(): Promise<void> {
    const transcription = this.transcription;
    if (!transcription) return Promise.resolve();
    this.extending ??= this.dependencies.sessions
      .extendReservation(transcription.id, this.config.tier)
      .then((grant) => {
        if (!grant) return;
        this.grant = grant;
        this.allowanceSamples =
          this.dependencies.sessions.allowanceSeconds(grant, this.config.tier) * LIVE_SAMPLE_RATE;
      })
      .finally(() => (this.extending = null));
    return this.extending;
  }

  /** Where the session must stop: its maximum length or what the balance (or free transcription) covers. */
  private limitSamples(): { samples: number; reason: RealtimeSessionEnd } {
    const maxSeconds = this.dependencies.config.REALTIME_MAX_SESSION_SECONDS;
    const maxSamples = maxSeconds * LIVE_SAMPLE_RATE;
    if (this.allowanceSamples < maxSamples) {
      return {
        samples: this.allowanceSamples,
        reason: new RealtimeSessionEnd(
          'insufficient_balance',
          `The balance (or free transcription) covers ${Math.floor(this.allowanceSamples / LIVE_SAMPLE_RATE)} s of audio at the ${this.config.tier} tier (what other open transcriptions hold aside); the session was closed with what was received, which is charged.`,
        ),
      };
    }
    return {
      samples: maxSamples,
      reason: new RealtimeSessionEnd('session_expired', `A session takes at most ${maxSeconds} s of audio.`),
    };
  }

  /**
   * Commits what was appended. The thread answers once it has decoded everything before the commit (up to
   * REALTIME_MAX_BUFFER_SECONDS of audio): that wait runs beside the message queue, so later messages are
   * handled meanwhile (their audio bounded by the same input buffer), and the thread still delivers the
   * commit's events before those of any later audio.
   */
  private commit(eventId: string | null): void {
    const recognition = this.recognition;
    if (!recognition) return;
    if (this.uncommittedSamples === 0) {
      const empty = {
        type: 'invalid_request_error' as const,
        code: 'input_audio_buffer_commit_empty',
        message: 'The input audio buffer is empty: append audio before committing.',
        param: null,
        event_id: eventId,
      };
      // Commits are answered in order: behind a commit still being decoded, the empty one's answer waits for it
      // (a client that sends a last, empty commit knows every transcript has arrived when its answer does).
      if (this.commitsInFlight > 0) void this.lastCommit.then(() => this.sendError(empty));
      else this.sendError(empty);
      return;
    }
    this.uncommittedSamples = 0;
    this.commitsInFlight++;
    const before = this.utterancesSeen;
    const end = Math.round((this.samples * 1000) / LIVE_SAMPLE_RATE);
    this.lastCommit = recognition
      .commit()
      .then(() => {
        // No speech was open (server VAD found none since the last item): the silence is committed as an empty item.
        if (this.utterancesSeen === before) {
          this.onRecognition([{ kind: 'utterance', startMs: end, endMs: end, words: [] }]);
        }
      })
      .catch((error: unknown) => this.crash(error))
      .finally(() => this.commitsInFlight--);
  }

  /** The last commit sent to the recognition thread, settled once it is answered. */
  private lastCommit: Promise<void> = Promise.resolve();

  private onRecognition(events: LiveEvent[]): void {
    const serverVad = this.config.turnDetection !== null;
    if (events.some((event) => heardSpeech(event, serverVad))) this.touch();
    for (const event of events) {
      switch (event.kind) {
        case 'speech-started':
          this.send({
            type: 'input_audio_buffer.speech_started',
            audio_start_ms: event.startMs,
            item_id: this.openItem().id,
          });
          break;
        case 'partial':
          this.sendPartial(event.text);
          break;
        case 'speech-stopped':
          this.send({
            type: 'input_audio_buffer.speech_stopped',
            audio_end_ms: event.endMs,
            item_id: this.openItem().id,
          });
          break;
        case 'utterance':
          this.sendUtterance(event);
          break;
      }
    }
  }

  /**
   * A partial: the whole hypothesis so far as the extension field `partial` (what live displays show), and an
   * empty `delta`. The words go out as deltas only when the utterance is final (sendUtterance): a live
   * hypothesis is revised at the utterance's end (the final search, the session's own mean), and OpenAI clients
   * concatenate deltas, so words sent early could not be taken back (issue 35 item 6: "at our mind on" sent,
   * "And while my fellow american." final). The concatenated deltas of an item are its transcript exactly.
   */
  private sendPartial(text: string): void {
    const item = this.openItem();
    if (text.trim() !== '') this.markDelivered();
    this.send({
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: item.id,
      content_index: 0,
      delta: '',
      partial: text,
    });
  }

  private sendUtterance(event: Extract<LiveEvent, { kind: 'utterance' }>): void {
    const item = this.openItem();
    this.item = null;
    this.utterancesSeen++;
    if (this.commitsInFlight === 0) this.uncommittedSamples = 0;
    this.words.push(...event.words);
    if (event.words.length > 0) this.markDelivered();
    if (event.words.length > 0) this.speech.push({ start: event.startMs / 1000, end: event.endMs / 1000 });
    this.send({
      type: 'input_audio_buffer.committed',
      item_id: item.id,
      previous_item_id: this.previousItemId,
    });
    this.previousItemId = item.id;
    const transcript = joinWords(event.words);
    // The item's words as one delta, exactly its transcript (see sendPartial).
    if (transcript !== '') {
      this.send({
        type: 'conversation.item.input_audio_transcription.delta',
        item_id: item.id,
        content_index: 0,
        delta: transcript,
        partial: transcript,
      });
    }
    this.send({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: item.id,
      content_index: 0,
      transcript,
      usage: { type: 'duration', seconds: (event.endMs - event.startMs) / 1000 },
      logprobs: null,
      audio_start_ms: event.startMs,
      audio_end_ms: event.endMs,
      words: event.words.map(({ word, start, end, confidence }) => ({
        word,
        start,
        end,
        confidence: confidence ?? null,
      })),
      transcription_id: this.transcription?.id ?? null,
    });
  }

  /** Recognised text goes out now (sent right after this): from here on, the session pays on every end. */
  private markDelivered(): void {
    if (this.socket.readyState === this.socket.OPEN) this.delivered = true;
  }

  private openItem(): OpenItem {
    return (this.item ??= { id: `item_${randomBytes(12).toString('hex')}` });
  }

  /** Ends the session once: an `error` event for a refusal, the open utterance committed, everything stored. */
  private end(reason: RealtimeSessionEnd | null): Promise<void> {
    this.ending ??= this.finish(reason)
      .catch((error: unknown) => {
        this.logger.error(`Realtime session ${this.sessionId} did not end cleanly: ${String(error)}`);
        this.closeSocket(REALTIME_CLOSE_REASONS.server_error.closeCode, 'server_error');
      })
      .finally(() => this.markEnded());
    return this.ending;
  }

  private async finish(reason: RealtimeSessionEnd | null): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.backpressure.stop();
    if (reason) this.send(endingErrorEvent(reason));
    // A deletion, or a credential that ended, delivers nothing more: recognition stops first (between two native
    // calls), unblocking a commit.
    if (this.deleted || this.credentialEnded) await this.recognition?.terminate();
    // Whatever is queued (an open session.update, appends) settles first; new messages are ignored from here on.
    await this.queue.catch(() => undefined);
    const recognition = this.recognition;
    if (recognition && !this.recognitionFailed && !this.deleted && !this.credentialEnded)
      await recognition.finish();
    else await recognition?.terminate();
    await new Promise<void>((resolve) => (this.pcm ? this.pcm.end(resolve) : resolve()));
    try {
      if (this.transcription && this.deleted) {
        // The deletion settles from this (TranscriptionsService.delete), under the record's lock.
        await this.record(true);
        this.dependencies.sessions.forget(this.transcription.id);
      } else if (this.transcription) {
        await this.settle(this.transcription.id, reason, recognition);
      }
    } finally {
      // Renewed until here: decoding the backlog and diarizing can outlast the lease, and the reconciler would
      // settle a session it thinks lost.
      if (this.renewTimer) clearInterval(this.renewTimer);
      if (this.credentialTimer) clearInterval(this.credentialTimer);
      await recognition?.terminate();
      await rm(this.pcmPath, { force: true });
      this.closeSocket(
        reason ? REALTIME_CLOSE_REASONS[reason.reason].closeCode : 1000,
        reason?.reason ?? 'session ended',
      );
    }
  }

  /**
   * Every end but a deletion: a server-side failure (recognition, or an error in the session) is `failed`, any
   * other end `closed`; RealtimeSessionsService.end applies the rule. What was received and delivered is
   * recorded first: if the settlement cannot be written (the database away), the reconciler settles from it
   * once the lease has passed.
   */
  private async settle(
    transcriptionId: string,
    reason: RealtimeSessionEnd | null,
    recognition: LiveRecognition | null,
  ): Promise<void> {
    const failed = this.recognitionFailed !== null || reason?.reason === 'server_error';
    await this.record(false).catch((error: unknown) =>
      this.logger.warn(`Realtime session ${this.sessionId}: progress not recorded: ${String(error)}`),
    );
    // Not after a failure, nor while the server shuts down (its grace period is for storing what was recognised).
    const speakerTurns =
      recognition && !failed && reason?.reason !== 'server_shutting_down'
        ? await this.speakerTurns(recognition)
        : null;
    await this.dependencies.sessions.end(
      transcriptionId,
      failed ? 'failed' : 'closed',
      {
        config: this.config,
        vocabulary: this.vocabulary,
        words: this.words,
        speakerTurns,
        samples: this.samples,
        delivered: this.delivered,
        pcmPath: this.pcmPath,
      },
      `ENGINE_FAILED: ${this.recognitionFailed ?? 'the session failed on the server'}; no text had been delivered, nothing was charged`,
    );
  }

  /**
   * Who spoke when, from the stored session audio with the tier's diarizer (as file jobs), on the session's
   * recognition thread; null (words without speakers) if that fails.
   */
  private async speakerTurns(recognition: LiveRecognition): Promise<SpeakerTurn[] | null> {
    try {
      const settings = this.dependencies.sessions.diarizationSettings(this.config.tier);
      return await recognition.diarize(settings, this.pcmPath, this.speech);
    } catch (error) {
      this.logger.warn(
        `Realtime session ${this.sessionId}: speakers not computed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return null;
    }
  }

  /** An unexpected failure inside the session: logged, and the session ends as a server error. */
  private crash(error: unknown): void {
    if (error instanceof RealtimeSessionEnd) {
      void this.end(error);
      return;
    }
    this.logger.error(
      `Realtime session ${this.sessionId} failed: ${error instanceof Error ? error.stack : String(error)}`,
    );
    void this.end(new RealtimeSessionEnd('server_error', 'The session failed on the server.'));
  }

  /** Restarts the idle clock: at open, and whenever speech is heard (appends alone do not count). */
  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    // Speech decoded while the session ends (its backlog) restarts no clock.
    if (this.ending) return;
    const idleMs = this.dependencies.config.REALTIME_IDLE_TIMEOUT_MS;
    this.idleTimer = setTimeout(() => {
      // Audio still being decoded is not idleness (a backlog, or a commit the thread has not answered): the clock
      // restarts once recognition has caught up.
      if ((this.recognition?.backlog.bufferedSamples ?? 0) > 0 || this.commitsInFlight > 0)
        return this.touch();
      void this.end(
        new RealtimeSessionEnd(
          'idle_timeout',
          `No speech was heard for ${idleMs} ms (appends of silence do not keep a session open).`,
        ),
      );
    }, idleMs);
  }

  private async renew(): Promise<void> {
    const alive = await this.record(false).catch(() => true);
    // Once ending, a transcription no longer `processing` is the session's own completion, not a deletion.
    if (!alive && !this.ending) this.transcriptionDeleted();
  }

  /** Records progress besides the timer once as much audio arrived as one renewal interval lasts. */
  private recordEvery(): void {
    const intervalSamples = (this.dependencies.sessions.leaseMs / 3 / 1000) * LIVE_SAMPLE_RATE;
    if (this.recordingInFlight || this.samples - this.recorded.samples < intervalSamples) return;
    this.record(false).catch((error: unknown) =>
      this.logger.warn(`Realtime session ${this.sessionId}: progress not recorded: ${String(error)}`),
    );
  }

  /**
   * Records what the session received and delivered with its lease (renewed, or given up with `release`), one
   * record at a time; false when its transcription is gone or no longer running. A record that fails is
   * written again by the next (the words not yet recorded stay pending).
   */
  private record(release: boolean): Promise<boolean> {
    const transcription = this.transcription;
    if (!transcription) return Promise.resolve(true);
    const run = async (): Promise<boolean> => {
      const samples = this.samples;
      const words = this.words.length;
      this.recordingInFlight = true;
      try {
        const alive = await this.dependencies.sessions.recordProgress(
          transcription.id,
          {
            audioSeconds: samples / LIVE_SAMPLE_RATE,
            delivered: this.delivered,
            model: this.config.tier,
            newWords: this.words.slice(this.recorded.words, words),
          },
          // Once deleted the lease stays given up, whatever records after.
          release || this.deleted,
        );
        this.recorded.samples = samples;
        this.recorded.words = words;
        return alive;
      } finally {
        this.recordingInFlight = false;
      }
    };
    const next = this.recording.catch(() => true).then(run);
    this.recording = next;
    return next;
  }

  private liveSettings(): LiveSettings {
    return {
      turnDetection: this.config.turnDetection,
      vocabulary: this.vocabulary,
      partialIntervalMs: PARTIAL_INTERVAL_MS,
      maxUtteranceSeconds: this.dependencies.maxUtteranceSeconds,
    };
  }

  private describe(): object {
    return describeSession(this.config, this.sessionId, this.transcription?.id ?? '');
  }

  private sendError(error: RealtimeErrorBody & Record<string, unknown>): void {
    this.send({ type: 'error', error });
  }

  /** Counted until written out: a client that does not read its events stops being read (SocketBackpressure). */
  private send(event: { type: string } & Record<string, unknown>): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    const text = serverEventText(event);
    const bytes = Buffer.byteLength(text);
    this.backpressure.sending(bytes);
    this.socket.send(text, () => this.backpressure.sent(bytes));
  }

  private closeSocket(code: number, reason: string): void {
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
      // Read again (stopped when the session began to end), so that the client's closing frame is; messages
      // read from here on are dropped as read.
      this.socket.resume();
      this.socket.close(code, reason.slice(0, 120));
    }
  }
}
