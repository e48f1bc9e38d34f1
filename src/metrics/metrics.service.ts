import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { MetricsConfig } from './metrics.config';
import { TRANSCRIPTION_QUEUE, WEBHOOK_DELIVERY_QUEUE } from '../queues/job-catalogue';

/**
 * How an attempt of a transcription job ended. `discarded`: the engine ran but the record was already final
 * or deleted, so the result was thrown away (a duplicate run, or a delete during the job).
 */
export type JobAttemptOutcome = 'completed' | 'failed' | 'retried' | 'discarded';

/** What the metrics need of a transcription's final state. */
export interface FinishedTranscription {
  status: string;
  errorMessage: string | null;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** Seconds; jobs run from under a second (short clips) to the 30-minute engine limit. */
const JOB_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1200, 1800];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const RTF_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 5];

/**
 * Prometheus metrics of this process. Counters and histograms are per process (HTTP in API processes, jobs
 * in workers); the queue and webhook gauges are read from Redis and PostgreSQL at scrape time, so every
 * process reports the same deployment-wide values (aggregate them with max, not sum).
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly logger = new Logger(MetricsService.name);
  private readonly tokenDigest: Buffer | null;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly jobDuration: Histogram<'model' | 'outcome'>;
  private readonly jobAttempts: Counter<'model' | 'outcome' | 'error_code'>;
  private readonly realTimeFactor: Histogram<'model'>;
  private readonly passwordVerifications: Counter<'result'>;
  private readonly realtimeRefusals: Counter<'reason'>;
  private readonly realtimeCapacity: Gauge;
  private readonly realtimeSessionCost: Gauge;
  private readonly ledgerErrors: Counter;

  constructor(
    config: MetricsConfig,
    @InjectQueue(TRANSCRIPTION_QUEUE) transcriptionQueue: Queue,
    @InjectQueue(WEBHOOK_DELIVERY_QUEUE) webhookQueue: Queue,
    @InjectDataSource() dataSource: DataSource,
  ) {
    this.tokenDigest = config.METRICS_TOKEN ? digest(config.METRICS_TOKEN) : null;
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'stt_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'stt_http_request_duration_seconds',
      help: 'Time from request to the last byte of the response (SSE streams: their whole life).',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'stt_transcription_job_duration_seconds',
      help: 'Wall time of one transcription job attempt in a worker (download, engine, result), by outcome.',
      labelNames: ['model', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.jobAttempts = new Counter({
      name: 'stt_transcription_job_attempts_total',
      help: 'Transcription job attempts by outcome; failed and retried ones carry the engine error code.',
      labelNames: ['model', 'outcome', 'error_code'],
      registers,
    });
    this.realTimeFactor = new Histogram({
      name: 'stt_transcription_real_time_factor',
      help: 'Processing seconds per second of audio of completed jobs (below 1: faster than real time).',
      labelNames: ['model'],
      buckets: RTF_BUCKETS,
      registers,
    });
    this.passwordVerifications = new Counter({
      name: 'stt_password_verifications_total',
      help: 'argon2 password verifications run by sign-in (dummy ones for unknown users too), by result.',
      labelNames: ['result'],
      registers,
    });
    this.realtimeRefusals = new Counter({
      name: 'stt_realtime_sessions_refused_total',
      help: 'Realtime sessions refused when opening (server_busy, too_many_sessions, unauthorized, insufficient_balance, …), by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.realtimeCapacity = new Gauge({
      name: 'stt_realtime_capacity_sessions',
      help: 'Realtime sessions this API process admits: REALTIME_MAX_SESSIONS, or what its cores sustain at the measured cost.',
      registers,
    });
    this.realtimeSessionCost = new Gauge({
      name: 'stt_realtime_session_cpu_seconds_per_audio_second',
      help: "CPU seconds one realtime session's recognition takes per second of audio on this machine (measured; the benchmark's figure until measured).",
      registers,
    });
    this.ledgerErrors = new Counter({
      name: 'stt_ledger_errors_total',
      help: 'Balance ledger postings (charges, top-ups, refunds) that failed with an error other than a refusal.',
      registers,
    });
    const logger = this.logger;
    new Gauge({
      name: 'stt_queue_oldest_waiting_seconds',
      help: 'Age of the oldest job waiting in each queue (0 when none waits), read from Redis at scrape time.',
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        for (const queue of [transcriptionQueue, webhookQueue]) {
          try {
            const [oldest] = await queue.getWaiting(0, 0);
            this.set({ queue: queue.name }, oldest ? Math.max(0, (Date.now() - oldest.timestamp) / 1000) : 0);
          } catch (error) {
            logger.warn(`Queue ${queue.name} not readable for metrics: ${(error as Error).message}`);
          }
        }
      },
    });
    new Gauge({
      name: 'stt_queue_jobs',
      help: 'Jobs in the shared Bull queues by state (read from Redis at scrape time).',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const queue of [transcriptionQueue, webhookQueue]) {
          try {
            const counts = await queue.getJobCounts();
            for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
          } catch (error) {
            logger.warn(`Queue ${queue.name} not readable for metrics: ${(error as Error).message}`);
          }
        }
      },
    });
    new Gauge({
      name: 'stt_webhook_deliveries',
      help: 'Webhook deliveries by status (pending, delivered, failed after all attempts), from PostgreSQL.',
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        try {
          const rows = await dataSource.query<Array<{ status: string; count: string }>>(
            'SELECT status, count(*) AS count FROM webhook_deliveries GROUP BY status',
          );
          for (const status of ['pending', 'delivered', 'failed']) {
            this.set({ status }, Number(rows.find((row) => row.status === status)?.count ?? 0));
          }
        } catch (error) {
          logger.warn(`Webhook deliveries not readable for metrics: ${(error as Error).message}`);
        }
      },
    });
  }

  /** Whether /metrics is enabled at all (METRICS_TOKEN set). */
  get enabled(): boolean {
    return this.tokenDigest !== null;
  }

  /** Compares an `Authorization` header with the token in constant time (digests of equal length). */
  authorizes(authorization: string | undefined): boolean {
    if (!this.tokenDigest || !authorization?.startsWith('Bearer ')) return false;
    return timingSafeEqual(digest(authorization.slice('Bearer '.length)), this.tokenDigest);
  }

  recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** An attempt that ended the job; `finished` is null when the record was already final or deleted. */
  recordJobFinished(
    model: string,
    finished: FinishedTranscription | null,
    seconds: number,
    audioSeconds?: number,
  ): void {
    if (!finished) {
      this.jobAttempts.inc({ model, outcome: 'discarded', error_code: '' });
      this.jobDuration.observe({ model, outcome: 'discarded' }, seconds);
      return;
    }
    const completed = finished.status === 'completed';
    const outcome: JobAttemptOutcome = completed ? 'completed' : 'failed';
    this.jobAttempts.inc({ model, outcome, error_code: completed ? '' : errorCodeOf(finished.errorMessage) });
    this.jobDuration.observe({ model, outcome }, seconds);
    if (completed && audioSeconds && audioSeconds > 0) {
      this.realTimeFactor.observe({ model }, seconds / audioSeconds);
    }
  }

  /** An attempt that failed transiently and is retried by the queue. */
  recordJobRetried(model: string, errorCode: string, seconds: number): void {
    this.jobAttempts.inc({ model, outcome: 'retried', error_code: errorCode });
    this.jobDuration.observe({ model, outcome: 'retried' }, seconds);
  }

  /** One argon2 verification by sign-in: `match`, or `mismatch` (a wrong password, or an unknown user's dummy). */
  recordPasswordVerification(matched: boolean): void {
    this.passwordVerifications.inc({ result: matched ? 'match' : 'mismatch' });
  }

  /** A realtime session refused when opening (the close reason it was given). */
  recordRealtimeRefusal(reason: string): void {
    this.realtimeRefusals.inc({ reason });
  }

  /** This process's live capacity and the measured cost of a session behind it (RealtimeGateway). */
  recordRealtimeCapacity(sessions: number, cpuSecondsPerAudioSecond: number): void {
    this.realtimeCapacity.set(sessions);
    this.realtimeSessionCost.set(cpuSecondsPerAudioSecond);
  }

  /** A ledger posting that failed (not a refusal such as an unknown workspace). */
  recordLedgerError(): void {
    this.ledgerErrors.inc();
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** errorMessage is "CODE: explanation" (EngineError codes, INSUFFICIENT_BALANCE). */
function errorCodeOf(errorMessage: string | null): string {
  const code = /^([A-Z_]+):/.exec(errorMessage ?? '')?.[1];
  return code ?? 'UNKNOWN';
}
