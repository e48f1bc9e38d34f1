import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import { availableParallelism } from 'node:os';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AuthOutcome } from '../common/principal/principal';
import { runWithRequestId } from '../common/logging/request-id';
import { problemBody } from '../common/problem/problem-details.filter';
import type { ProblemException } from '../common/problem/problem.exception';
import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import { UpgradeRequestContext, type UpgradeRequest } from '../http-platform/upgrade-request-context';
import { ProblemConfig } from '../common/problem/problem.config';
import { QueuesConfig } from '../queues/queues.config';
import { RealtimeConfig } from './realtime.config';
import { engineSettingsFrom } from '../engine/engine.module';
import { EngineTiers } from '../engine/tiers/engine-tiers';
import { defaultWorkspaceShare } from './recognition/live-decoding';
import { LiveCapacityMeter, type LiveSessionUsage } from './recognition/live-capacity';
import type { LiveSettings } from './recognition/live-transcriber';
import {
  endingErrorEvent,
  REALTIME_CLOSE_REASONS,
  RealtimeRequestError,
  RealtimeSessionEnd,
  serverEventText,
} from './realtime-errors';
import { RealtimeSession, type RealtimeSessionDependencies } from './realtime-session';
import { initialSessionConfig, sessionWallSeconds, type SessionConfig } from './realtime-session-config';
import { RealtimeCredentials } from './realtime-credentials';
import { MetricsService } from '../metrics/metrics.service';
import { RealtimeSessionsService } from './realtime-sessions.service';
import { toDeepgramError } from '../deepgram-compat/deepgram-error';
import { toAssemblyAiError } from '../assemblyai-compat/assemblyai-error';
import { chooseProtocol, RealtimeUpgradeAuthenticator } from './realtime-upgrade-auth';
import { ASSEMBLYAI_STREAMING_PATH, DEEPGRAM_LISTEN_PATH } from '../common/http/request-path';
import { ProblemException as Problem } from '../common/problem/problem.exception';
import { bytesPerSecond } from './realtime-audio-format';
import { readDeepgramLiveParams, type DeepgramLiveOptions } from './deepgram/deepgram-live-params';
import { DeepgramLiveSocket } from './deepgram/deepgram-live-socket';
import {
  AssemblyAiStreamingParamError,
  readAssemblyAiStreamingParams,
} from './assemblyai/assemblyai-streaming-params';
import { AssemblyAiStreamingSocket } from './assemblyai/assemblyai-streaming-socket';

export const REALTIME_PATH = '/v1/realtime';
/** How long a client refused for capacity should wait before trying again. */
const BUSY_RETRY_AFTER_MS = 5_000;
/** How often the open sessions' recognition threads are read for the capacity meter. */
const CAPACITY_READING_MS = 2_000;

/**
 * The WebSocket endpoint /v1/realtime on the API's HTTP server: authenticates the upgrade request
 * (RealtimeUpgradeAuthenticator: an API key, access token or client secret, or the session cookie from the
 * service's own pages), charges it to the caller's rate limit and logs it in the API key's request log as an
 * HTTP request (UpgradeRequestContext), applies the instance's session capacity and the workspace's share of
 * it, and hands the socket to a RealtimeSession. Every refusal of the session is an `error` event followed by a
 * close code; only the rate limit (429) and a cookie sent from a foreign origin (403) are refused before the
 * upgrade, as HTTP answers.
 */
@Injectable()
export class RealtimeGateway implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RealtimeGateway.name);
  private server: WebSocketServer | null = null;
  private readonly open = new Set<RealtimeSession>();
  /** What this machine's sessions cost, measured; the capacity when REALTIME_MAX_SESSIONS is unset. */
  private readonly meter = new LiveCapacityMeter(availableParallelism());
  private reading: NodeJS.Timeout | null = null;
  private readonly dependencies: RealtimeSessionDependencies;
  /** The extra headers of each upgrade's 101 answer (request id, rate limit), until ws writes it. */
  private readonly answerHeaders = new WeakMap<IncomingMessage, Record<string, string>>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: RealtimeUpgradeAuthenticator,
    private readonly sessions: RealtimeSessionsService,
    private readonly shutdown: ShutdownCoordinator,
    private readonly config: RealtimeConfig,
    private readonly problems: ProblemConfig,
    private readonly upgrades: UpgradeRequestContext,
    queues: QueuesConfig,
    tiers: EngineTiers,
    credentials: RealtimeCredentials,
    private readonly metrics: MetricsService,
  ) {
    const engine = engineSettingsFrom(tiers, queues);
    this.dependencies = {
      sessions,
      config,
      credentials,
      maxUtteranceSeconds: engine.speech.maxChunkSeconds,
      recognitionSpec: (live: LiveSettings) => ({
        pocketsphinx: engine.pocketsphinx,
        vadModelPath: engine.speech.vadModelPath,
        live,
      }),
    };
  }

  /**
   * Sessions one process serves at once: REALTIME_MAX_SESSIONS when the operator set it, else what the cores
   * sustain at the cost this process measures its own sessions at (LiveCapacityMeter).
   */
  get capacity(): number {
    return this.config.REALTIME_MAX_SESSIONS ?? this.meter.capacity;
  }

  /**
   * Whether one more session may open: under the capacity and, when it is measured (REALTIME_MAX_SESSIONS
   * unset), while no open session is behind real time; a fixed capacity is the operator's to keep.
   */
  private admitsAnother(): boolean {
    if (this.config.REALTIME_MAX_SESSIONS !== undefined)
      return this.open.size < this.config.REALTIME_MAX_SESSIONS;
    return this.meter.admits(this.open.size);
  }

  /** One reading of every open session's recognition thread for the meter. */
  private async readSessions(): Promise<void> {
    const readings = new Map<object, LiveSessionUsage>();
    await Promise.all(
      [...this.open].map(async (session) => {
        const usage = await session.usage();
        if (usage) readings.set(session, usage);
      }),
    );
    this.meter.observe(readings);
    this.metrics.recordRealtimeCapacity(this.capacity, this.meter.cpuPerAudioSecond);
  }

  /** Of this process's sessions, how many one workspace may hold. */
  get workspaceShare(): number {
    return this.config.REALTIME_MAX_PROCESS_SESSIONS_PER_WORKSPACE ?? defaultWorkspaceShare(this.capacity);
  }

  onApplicationBootstrap(): void {
    // The worker role has no HTTP server, and no realtime endpoint.
    const http = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!http) return;
    // Messages up to twice the limit are read and refused with an `error` event; larger ones are cut off by
    // the WebSocket layer itself (close 1009 without an event), so a hostile frame is never buffered whole.
    this.server = new WebSocketServer({
      noServer: true,
      maxPayload: this.config.REALTIME_MAX_MESSAGE_BYTES * 2,
      handleProtocols: chooseProtocol,
    });
    this.server.on('headers', (headers: string[], request: IncomingMessage) => {
      for (const [name, value] of Object.entries(this.answerHeaders.get(request) ?? {})) {
        headers.push(`${name}: ${value}`);
      }
    });
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(request, socket, head).catch((error: unknown) => {
        this.logger.error(`Realtime upgrade failed: ${String(error)}`);
        socket.destroy();
      });
    });
    this.shutdown.onDrain('realtime-sessions', () => this.drain());
    this.metrics.recordRealtimeCapacity(this.capacity, this.meter.cpuPerAudioSecond);
    if (this.config.REALTIME_MAX_SESSIONS === undefined) {
      this.reading = setInterval(() => {
        this.readSessions().catch((error: unknown) =>
          this.logger.warn(`Reading the realtime sessions' cost failed: ${String(error)}`),
        );
      }, CAPACITY_READING_MS);
      this.reading.unref();
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.reading) clearInterval(this.reading);
    await this.drain();
    this.server?.close();
  }

  /** Ends every open session (server shutting down): each is told, and what it received is stored and billed. */
  private async drain(): Promise<void> {
    await Promise.all(
      [...this.open].map((session) =>
        session.stop(
          new RealtimeSessionEnd(
            'server_shutting_down',
            'The server is shutting down; reconnect to continue.',
          ),
        ),
      ),
    );
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const server = this.server;
    const deepgram = url.pathname === DEEPGRAM_LISTEN_PATH;
    const assemblyAi = url.pathname === ASSEMBLYAI_STREAMING_PATH;
    if ((url.pathname !== REALTIME_PATH && !deepgram && !assemblyAi) || !server) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const context = this.upgrades.start(request);
    const admission = await this.authenticator.admit(request);
    if (admission.kind === 'upgrade') {
      admission.outcome = this.upgrades.admitted(request, admission.outcome);
    }
    const auth: AuthOutcome = admission.kind === 'upgrade' ? admission.outcome : { kind: 'anonymous' };
    const limited = await this.upgrades.meter(context, request, auth);
    // What is refused before the upgrade answers in the shape of the path's API, as its SDK reads it.
    const shape = deepgram ? 'deepgram' : assemblyAi ? 'assemblyai' : 'problem';
    if (limited) return this.refuseUpgrade(socket, context, request, auth, limited, shape);
    if (admission.kind === 'refuse') {
      return this.refuseUpgrade(socket, context, request, auth, admission.problem, shape);
    }
    // Deepgram's live API refuses a handshake with an HTTP answer in its error shape (its SDK reads it).
    let deepgramSession: { config: SessionConfig; options: DeepgramLiveOptions } | null = null;
    if (deepgram) {
      try {
        if (auth.kind !== 'authenticated') {
          throw auth.kind === 'failed'
            ? auth.problem
            : new Problem('unauthorized', 'Send the API key as `Authorization: Token <API key>`.');
        }
        deepgramSession = readDeepgramLiveParams(url.searchParams);
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        return this.refuseUpgrade(socket, context, request, auth, error, 'deepgram');
      }
    }
    this.answerHeaders.set(request, context.headers);
    server.handleUpgrade(request, socket, head, (webSocket) => {
      this.upgrades.answered(context, request, auth, 101);
      // The session's work (its transcription's record, its log lines) carries the upgrade's request id.
      runWithRequestId(context.requestId, () =>
        assemblyAi
          ? this.acceptAssemblyAi(webSocket, admission.outcome, admission.boundConfig, url)
          : deepgramSession
            ? this.accept(
                new DeepgramLiveSocket(
                  webSocket,
                  deepgramSession.options,
                  bytesPerSecond(deepgramSession.config.format),
                ) as unknown as WebSocket,
                admission.outcome,
                deepgramSession.config,
                url,
              )
            : this.accept(webSocket, admission.outcome, admission.boundConfig, url),
      );
    });
  }

  /**
   * AssemblyAI's streaming API: its parameters are read after the upgrade, as AssemblyAI does, so a refusal is a
   * close code its SDK knows (4000 for the audio format, 3006 for another parameter) with the reason as the close
   * reason; then the session opens as any other, behind AssemblyAiStreamingSocket. A token's
   * `max_session_duration_seconds` comes with its bound configuration.
   */
  private acceptAssemblyAi(
    webSocket: WebSocket,
    outcome: AuthOutcome,
    boundConfig: SessionConfig | null,
    url: URL,
  ): void {
    let requested: ReturnType<typeof readAssemblyAiStreamingParams>;
    try {
      requested = readAssemblyAiStreamingParams(url.searchParams);
    } catch (error) {
      if (!(error instanceof AssemblyAiStreamingParamError)) throw error;
      this.metrics.recordRealtimeRefusal('invalid_session');
      webSocket.close(error.closeCode, error.message.slice(0, 120));
      return;
    }
    const config: SessionConfig = {
      ...requested.config,
      ...(boundConfig?.maxWallSeconds !== undefined ? { maxWallSeconds: boundConfig.maxWallSeconds } : {}),
    };
    const wallSeconds = sessionWallSeconds(config, this.config.REALTIME_MAX_SESSION_WALL_SECONDS);
    const layer = new AssemblyAiStreamingSocket(
      webSocket,
      requested.options,
      bytesPerSecond(config.format),
      Math.floor(Date.now() / 1000) + wallSeconds,
    );
    this.accept(layer as unknown as WebSocket, outcome, config, url);
  }

  /** A session refused when opening: counted (stt_realtime_sessions_refused_total), then told why and closed. */
  private refuse(webSocket: WebSocket, end: RealtimeSessionEnd): void {
    this.metrics.recordRealtimeRefusal(end.reason);
    refuse(webSocket, end);
  }

  private refuseUpgrade(
    socket: Duplex,
    context: UpgradeRequest,
    request: IncomingMessage,
    auth: AuthOutcome,
    problem: ProblemException,
    shape: 'problem' | 'deepgram' | 'assemblyai' = 'problem',
  ): void {
    socket.end(
      shape === 'deepgram'
        ? deepgramErrorResponse(problem, context)
        : shape === 'assemblyai'
          ? assemblyAiErrorResponse(problem, context)
          : problemResponse(this.problems, problem, context.headers),
    );
    this.upgrades.answered(context, request, auth, problem.status);
  }

  private accept(
    webSocket: WebSocket,
    outcome: AuthOutcome,
    boundConfig: SessionConfig | null,
    url: URL,
  ): void {
    if (outcome.kind !== 'authenticated') {
      const detail =
        outcome.kind === 'failed'
          ? outcome.problem.detail
          : 'Send a credential as `Authorization: Bearer <API key or access token>`, or from a browser a client ' +
            'secret (POST /v1/realtime/client_secrets) as the subprotocol `openai-insecure-api-key.<secret>`.';
      const reason =
        outcome.kind === 'failed' && outcome.problem.status === 403 ? 'forbidden' : 'unauthorized';
      return this.refuse(webSocket, new RealtimeSessionEnd(reason, detail));
    }
    if (this.shutdown.draining) {
      return this.refuse(
        webSocket,
        new RealtimeSessionEnd(
          'server_shutting_down',
          'The server is shutting down.',
          null,
          BUSY_RETRY_AFTER_MS,
        ),
      );
    }
    const workspaceId = outcome.principal.workspaceId;
    const held = [...this.open].filter((session) => session.workspaceId === workspaceId).length;
    if (held >= this.workspaceShare) {
      return this.refuse(
        webSocket,
        new RealtimeSessionEnd(
          'too_many_sessions',
          `This workspace holds ${held} of this server's ${this.capacity} realtime sessions, its share; close one first.`,
        ),
      );
    }
    if (!this.admitsAnother()) {
      return this.refuse(
        webSocket,
        new RealtimeSessionEnd(
          'server_busy',
          this.open.size >= this.capacity
            ? `This server runs ${this.capacity} realtime sessions, its capacity; try again shortly.`
            : 'Recognition on this server is behind real time; try again shortly.',
          null,
          BUSY_RETRY_AFTER_MS,
        ),
      );
    }
    let config: SessionConfig;
    try {
      // A client secret's session is the one it was minted for; the URL's model (the SDK always sends one) is not.
      config = boundConfig ?? initialSessionConfig(url.searchParams.get('model') ?? 'whisper-1');
    } catch (error) {
      if (!(error instanceof RealtimeRequestError)) throw error;
      return this.refuse(webSocket, new RealtimeSessionEnd('invalid_session', error.message, error.param));
    }
    const session = new RealtimeSession(webSocket, outcome.principal, config, this.dependencies);
    this.open.add(session);
    void session.ended.then(() => this.open.delete(session));
    session.run();
  }
}

function refuse(webSocket: WebSocket, end: RealtimeSessionEnd): void {
  webSocket.send(serverEventText(endingErrorEvent(end)));
  webSocket.close(REALTIME_CLOSE_REASONS[end.reason].closeCode, end.reason);
}

/** A refused Deepgram handshake, in Deepgram's error shape (toDeepgramError). */
function deepgramErrorResponse(problem: ProblemException, context: UpgradeRequest): string {
  const error = toDeepgramError(problem, context.requestId);
  const body = { err_code: error.errCode, err_msg: error.message, request_id: context.requestId };
  return httpAnswer(
    error.status,
    'application/json; charset=utf-8',
    { ...context.headers, ...error.headers },
    body,
  );
}

/** A handshake refused before the upgrade on AssemblyAI's path (the rate limit), in its `{"error"}` shape. */
function assemblyAiErrorResponse(problem: ProblemException, context: UpgradeRequest): string {
  const error = toAssemblyAiError(problem);
  const headers = { ...context.headers, ...error.headers };
  return httpAnswer(error.status, 'application/json; charset=utf-8', headers, { error: error.message });
}

/** A refused handshake as an HTTP answer with a problem body. */
function problemResponse(
  config: ProblemConfig,
  problem: ProblemException,
  headers: Record<string, string>,
): string {
  const body = problemBody(config, problem);
  return httpAnswer(problem.status, 'application/problem+json', { ...headers, ...problem.headers }, body);
}

/** The raw HTTP answer to a refused handshake, the connection closed after it. */
function httpAnswer(
  status: number,
  contentType: string,
  headers: Record<string, string>,
  body: object,
): string {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
    `Content-Type: ${contentType}\r\n${extra}` +
    `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
  );
}
