import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { ApiKey } from './api-key.entity';
import { ApiKeyRequest } from './api-key-request.entity';
import type { Schema } from '../openapi/contract-types';

export interface ApiKeyRequestEntry {
  apiKeyId: string;
  at: Date;
  method: string;
  path: string;
  /** loggedQuery of the request's URL. */
  query: string;
  status: number;
  durationMs: number;
  requestId: string;
}

export type ApiKeyRequestView = Schema<'ApiKeyRequest'>;

/** A status filter: one code (`404`) or a class (`4xx`). */
export type StatusFilter = { code: number } | { class: number };

/** Entries are written together once this many wait, or FLUSH_INTERVAL_MS after the first one arrived. */
export const REQUEST_LOG_BATCH_SIZE = 200;
export const REQUEST_LOG_FLUSH_INTERVAL_MS = 1_000;
/** Entries held while the database does not answer; beyond this, new entries are dropped (and counted). */
export const REQUEST_LOG_MAX_BUFFERED = 10_000;
const MAX_PATH_LENGTH = 512;

/**
 * The request log of API keys. Requests never wait for it: `record` only appends to an in-memory buffer,
 * which one multi-row INSERT writes every second (or at 200 entries), off the request's path. The log is a
 * diagnostic aid, not an audit trail: a batch the database refuses (outage, failover) is dropped with a
 * warning instead of being retried, so an outage cannot grow the process's memory; so are entries beyond
 * 10 000 waiting ones, and the entries of a process that is killed (a graceful shutdown writes them).
 */
@Injectable()
export class ApiKeyRequestLog implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ApiKeyRequestLog.name);
  private buffer: ApiKeyRequestEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private dropped = 0;

  constructor(
    @InjectRepository(ApiKeyRequest) private readonly requests: Repository<ApiKeyRequest>,
    @InjectRepository(ApiKey) private readonly apiKeys: Repository<ApiKey>,
  ) {}

  record(entry: ApiKeyRequestEntry): void {
    if (this.buffer.length >= REQUEST_LOG_MAX_BUFFERED) {
      this.dropped += 1;
      return;
    }
    this.buffer.push({ ...entry, path: entry.path.slice(0, MAX_PATH_LENGTH) });
    if (this.buffer.length >= REQUEST_LOG_BATCH_SIZE) {
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), REQUEST_LOG_FLUSH_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Writes what is buffered in one statement; a failure drops the batch with a warning. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length === 0) return;
    try {
      // unnest: one statement whatever the batch size. Entries of a key deleted meanwhile (its workspace
      // was deleted) are skipped instead of failing the whole batch on the foreign key.
      await this.requests.query(
        `INSERT INTO api_key_requests (api_key_id, at, method, path, status, duration_ms, request_id, query)
         SELECT r.* FROM unnest($1::uuid[], $2::timestamptz[], $3::varchar[], $4::varchar[], $5::smallint[],
                                $6::integer[], $7::varchar[], $8::varchar[])
                      AS r(api_key_id, at, method, path, status, duration_ms, request_id, query)
          WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = r.api_key_id)`,
        [
          batch.map((entry) => entry.apiKeyId),
          batch.map((entry) => entry.at),
          batch.map((entry) => entry.method),
          batch.map((entry) => entry.path),
          batch.map((entry) => entry.status),
          batch.map((entry) => entry.durationMs),
          batch.map((entry) => entry.requestId),
          batch.map((entry) => entry.query),
        ],
      );
    } catch (error) {
      this.dropped += batch.length;
      this.logger.warn(`Request log: ${batch.length} entries not written: ${(error as Error).message}`);
    }
    if (this.dropped > 0 && this.buffer.length === 0) {
      this.logger.warn(`Request log: ${this.dropped} entries dropped in total since the last report`);
      this.dropped = 0;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** The key's latest requests, newest first; 404 when the workspace has no such key (revoked ones count). */
  async list(
    workspaceId: string,
    apiKeyId: string,
    options: { limit: number; status?: StatusFilter; createdBy?: string },
  ): Promise<ApiKeyRequestView[]> {
    // createdBy: a caller who may see only the keys they created (ApiKeysService.onlyOwn).
    const where = {
      id: apiKeyId,
      workspaceId,
      ...(options.createdBy !== undefined ? { userId: options.createdBy } : {}),
    };
    if (!(await this.apiKeys.exists({ where }))) {
      throw ProblemException.notFound('The API key');
    }
    const query = this.requests
      .createQueryBuilder('r')
      .where('r.api_key_id = :apiKeyId', { apiKeyId })
      .orderBy('r.at', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .take(options.limit);
    const status = options.status;
    if (status && 'code' in status) query.andWhere('r.status = :code', { code: status.code });
    if (status && 'class' in status) {
      query.andWhere('r.status >= :low AND r.status < :high', {
        low: status.class * 100,
        high: status.class * 100 + 100,
      });
    }
    return (await query.getMany()).map((row) => ({
      at: row.at.toISOString(),
      method: row.method,
      path: row.path,
      query: row.query,
      status: row.status,
      durationMs: row.durationMs,
      requestId: row.requestId,
    }));
  }
}
