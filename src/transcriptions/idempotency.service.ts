import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isUuid } from '../common/http/resource-id.pipe';
import { ProblemException } from '../common/problem/problem.exception';
import { IdempotencyRecord } from './idempotency-record.entity';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type IdempotencyClaim =
  { kind: 'claimed'; recordId: string } | { kind: 'replay'; status: number; body: unknown };

export function parseIdempotencyKey(raw: string | string[] | undefined): string | null {
  if (raw === undefined) return null;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!isUuid(value.trim())) {
    throw new ProblemException('invalid-idempotency-key', 'Idempotency-Key must be a UUID.');
  }
  return value.trim().toLowerCase();
}

/** Hash of everything that makes two requests "the same": fields (sorted), file content and name. */
export function requestFingerprint(parts: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(parts)
      .sort()
      .map((key) => [key, parts[key]]),
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Idempotency-Key handling after the IETF draft: the unique index on (workspace, key) decides races; a
 * finished request is replayed, one still in flight is a 409, a different request with the key a 422.
 */
@Injectable()
export class IdempotencyService {
  constructor(@InjectRepository(IdempotencyRecord) private readonly records: Repository<IdempotencyRecord>) {}

  async claim(
    workspaceId: string,
    key: string,
    fingerprint: string,
    now = new Date(),
  ): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const inserted = await this.records
        .createQueryBuilder()
        .insert()
        .values({
          workspaceId,
          key,
          fingerprint,
          state: 'in-flight',
          responseStatus: null,
          responseBody: null,
          expiresOn: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
        })
        .orIgnore()
        .returning(['id'])
        .execute();
      const row = (inserted.raw as Array<{ id: string }>)[0];
      if (row) return { kind: 'claimed', recordId: row.id };

      const existing = await this.records.findOne({ where: { workspaceId, key } });
      if (!existing) continue;
      if (existing.expiresOn.getTime() <= now.getTime()) {
        await this.records.delete({ id: existing.id, expiresOn: existing.expiresOn });
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw new ProblemException(
          'idempotency-key-mismatch',
          'This Idempotency-Key was already used with a different request in the last 24 hours.',
        );
      }
      if (existing.state === 'in-flight') {
        throw new ProblemException(
          'idempotency-key-in-flight',
          'A request with this Idempotency-Key is still being processed; retry when it has finished.',
          {},
          { 'Retry-After': '1' },
        );
      }
      return { kind: 'replay', status: existing.responseStatus ?? 202, body: existing.responseBody };
    }
    throw new ProblemException(
      'idempotency-key-in-flight',
      'The Idempotency-Key is contended; retry shortly.',
      {},
      {
        'Retry-After': '1',
      },
    );
  }

  async complete(recordId: string, status: number, body: unknown): Promise<void> {
    await this.records.update(
      { id: recordId },
      {
        state: 'completed',
        responseStatus: status,
        responseBody: body as QueryDeepPartialEntity<Record<string, unknown>>,
      },
    );
  }

  /** A request that failed releases its key, so the client can retry it (e.g. after a top-up). */
  async release(recordId: string): Promise<void> {
    await this.records.delete({ id: recordId, state: 'in-flight' });
  }
}
