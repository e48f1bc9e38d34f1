import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Response } from 'express';
import type { IncomingMessage, Server } from 'node:http';
import { availableParallelism } from 'node:os';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CredentialResolver } from '../auth/credential-resolver.service';
import type { AuthOutcome, RequestWithAuth } from '../auth/principal';
import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import { EngineSettingsPending } from '../config/engine-settings-pending';
import { QueuesConfig } from '../queues/queues.config';
import { RealtimeConfig } from './realtime.config';
import { engineSettingsFrom } from '../engine/engine.module';
import { EngineTiers } from '../engine/tiers/engine-tiers';
import type { LiveSettings } from './recognition/live-transcriber';
import {
  endingErrorEvent,
  REALTIME_CLOSE_REASONS,
  RealtimeRequestError,
  RealtimeSessionEnd,
  serverEventText,
} from './realtime-errors';
import { RealtimeSession, type RealtimeSessionDependencies } from './realtime-session';
import { initialSessionConfig } from './realtime-session-config';
import { RealtimeSessionsService } from './realtime-sessions.service';

export const REALTIME_PATH = '/v1/realtime';
/** How long a client refused for capacity should wait before trying again. */
const BUSY_RETRY_AFTER_MS = 5_000;

/**
 * The WebSocket endpoint /v1/realtime on the API's HTTP server: authenticates the upgrade request as any API
 * call (Authorization: Bearer with an API key or access token), applies the instance's session capacity and
 * hands the socket to a RealtimeSession. Every refusal is an `error` event followed by a close code.
 */
@Injectable()
export class RealtimeGateway implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RealtimeGateway.name);
  private server: WebSocketServer | null = null;
  private readonly open = new Set<RealtimeSession>();
  private readonly dependencies: RealtimeSessionDependencies;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly credentials: CredentialResolver,
    private readonly sessions: RealtimeSessionsService,
    private readonly shutdown: ShutdownCoordinator,
    private readonly config: RealtimeConfig,
    engineConfig: EngineSettingsPending,
    queues: QueuesConfig,
    tiers: EngineTiers,
  ) {
    const engine = engineSettingsFrom(engineConfig, queues, tiers);
    this.dependencies = {
      sessions,
      config,
      maxUtteranceSeconds: engine.speech.maxChunkSeconds,
      recognitionSpec: (live: LiveSettings) => ({
        pocketsphinx: engine.pocketsphinx,
        vadModelPath: engine.speech.vadModelPath,
        live,
      }),
    };
  }

  /** Sessions one process serves at once. */
  get capacity(): number {
    return this.config.REALTIME_MAX_SESSIONS ?? availableParallelism() * 2;
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
    });
    http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(request, socket, head).catch((error: unknown) => {
        this.logger.error(`Realtime upgrade failed: ${String(error)}`);
        socket.destroy();
      });
    });
    this.shutdown.onDrain('realtime-sessions', () => this.drain());
  }

  async onModuleDestroy(): Promise<void> {
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
    if (url.pathname !== REALTIME_PATH || !server) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const outcome = await this.credentials.resolve(request as RequestWithAuth, {} as Response);
    server.handleUpgrade(request, socket, head, (webSocket) => this.accept(webSocket, outcome, url));
  }

  private accept(webSocket: WebSocket, outcome: AuthOutcome, url: URL): void {
    if (outcome.kind !== 'authenticated') {
      const detail =
        outcome.kind === 'failed'
          ? outcome.problem.detail
          : 'Send a credential as `Authorization: Bearer <API key or access token>`.';
      return refuse(webSocket, new RealtimeSessionEnd('unauthorized', detail));
    }
    if (this.shutdown.draining) {
      return refuse(
        webSocket,
        new RealtimeSessionEnd(
          'server_shutting_down',
          'The server is shutting down.',
          null,
          BUSY_RETRY_AFTER_MS,
        ),
      );
    }
    if (this.open.size >= this.capacity) {
      return refuse(
        webSocket,
        new RealtimeSessionEnd(
          'server_busy',
          `This server runs ${this.capacity} realtime sessions, its capacity; try again shortly.`,
          null,
          BUSY_RETRY_AFTER_MS,
        ),
      );
    }
    let config;
    try {
      config = initialSessionConfig(url.searchParams.get('model') ?? 'whisper-1');
    } catch (error) {
      if (!(error instanceof RealtimeRequestError)) throw error;
      return refuse(webSocket, new RealtimeSessionEnd('invalid_session', error.message, error.param));
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
