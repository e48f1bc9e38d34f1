import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { Brackets, EntityManager, LessThanOrEqual, Repository } from 'typeorm';
import { isUuid } from '../common/http/resource-id.pipe';
import { ProblemException } from '../common/problem/problem.exception';
import { IdempotencyRecord } from './idempotency-record.entity';

/** How long a completed answer is replayed (and a key cannot be reused for another request). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * How long an in-flight claim stays its holder's without a renewal. The holder renews it every third of
 * that while the request runs (a long upload included); a crashed process stops renewing, and the key is
 * free for a retry at most this long after the crash, instead of answering 409 for 24 hours.
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;
/** Expired records are deleted this often (and a claim on an expired key deletes it at once). */
export const IDEMPOTENCY_SWEEP_INTERVAL_MS = 15 * 60 * 1000;

/** An answer exactly as it was sent: status, content type and the body's text. */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

export type IdempotencyClaim =
  /** This request holds the key; it completes the record with its answer or releases it. */
  | { kind: 'claimed'; recordId: string }
  /** The key already has an answer; whether this request may have it depends on its body (fingerprint). */
  | { kind: 'answered'; recordId: string; fingerprint: string | null; response: StoredResponse };

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
 * The key a request without Idempotency-Key implicitly carries: a UUID (the keys' column type) derived from
 * who sends it and its fingerprint, so an identical request from the same principal finds the first one's
 * record (docs/decisions.md, "OpenAI route: retries attach to the first job").
 */
export function implicitIdempotencyKey(principalKey: string, fingerprint: string): string {
  const hex = createHash('sha256').update(`implicit\n${principalKey}\n${fingerprint}`).digest('hex');
  // Shaped as a version-8 (custom) UUID, so it is also a valid value of the uuid column.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const inFlight = (): ProblemException =>
  new ProblemException(
    'idempotency-key-in-flight',
    'A request with this Idempotency-Key is still being processed; retry when it has finished.',
    {},
    { 'Retry-After': '1' },
  );

/**
 * Idempotency-Key handling after the IETF draft (docs/decisions.md, "Idempotency-Key"): the unique index on
 * (workspace, key) decides races. The key is claimed before the body is read, so a request still in flight
 * is refused with 409 at once; only a successful (2xx) answer is stored, in the transaction that creates
 * the transcription, and replayed byte for byte; any refusal releases the key so the client can correct
 * the request and retry with the same key. A different request with an answered key is a 422.
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyService.name);
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(@InjectRepository(IdempotencyRecord) private readonly records: Repository<IdempotencyRecord>) {}

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(() => {
      this.sweepExpired().catch((error: Error) =>
        this.logger.warn(`Idempotency sweep failed: ${error.message}`),
      );
    }, IDEMPOTENCY_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }

  async claim(workspaceId: string, key: string, now = new Date()): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.records
        .createQueryBuilder()
        .insert()
        .values({
          workspaceId,
          key,
          fingerprint: null,
          state: 'in-flight',
          responseStatus: null,
          responseBody: null,
          responseContentType: null,
          leaseExpiresOn: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
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
      if (existing.state === 'in-flight') {
        if (existing.leaseExpiresOn && existing.leaseExpiresOn.getTime() > now.getTime()) throw inFlight();
        // Its holder stopped renewing (crashed): take the key over. Should the holder still be alive, its
        // completion finds the record gone and rolls its transaction back, so one job exists at most.
        await this.deleteStaleClaim(existing.id, now);
        continue;
      }
      return {
        kind: 'answered',
        recordId: existing.id,
        fingerprint: existing.fingerprint,
        response: {
          status: existing.responseStatus ?? 202,
          contentType: existing.responseContentType ?? 'application/json; charset=utf-8',
          body: existing.responseBody ?? '',
        },
      };
    }
    throw new ProblemException(
      'idempotency-key-in-flight',
      'The Idempotency-Key is contended; retry shortly.',
      {},
      { 'Retry-After': '1' },
    );
  }

  /** The stored answer for a request with the same fingerprint; a different request is refused. */
  replay(answered: Extract<IdempotencyClaim, { kind: 'answered' }>, fingerprint: string): StoredResponse {
    if (answered.fingerprint !== fingerprint) {
      throw new ProblemException(
        'idempotency-key-mismatch',
        'This Idempotency-Key was already used with a different request in the last 24 hours.',
      );
    }
    return answered.response;
  }

  /** Renews the claim's lease every third of its length until stopped. */
  holdClaim(recordId: string): { stop: () => void } {
    const timer = setInterval(() => {
      void this.records
        .update(
          { id: recordId, state: 'in-flight' },
          { leaseExpiresOn: new Date(Date.now() + IDEMPOTENCY_LEASE_MS) },
        )
        .catch((error: Error) => this.logger.warn(`Idempotency lease not renewed: ${error.message}`));
    }, IDEMPOTENCY_LEASE_MS / 3);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  /**
   * Stores the answer in the caller's transaction (the one that creates the transcription). A claim that
   * was taken over meanwhile makes the whole transaction fail, so no second job is created.
   */
  async complete(
    tx: EntityManager,
    recordId: string,
    fingerprint: string,
    response: StoredResponse,
  ): Promise<void> {
    const updated = await tx.getRepository(IdempotencyRecord).update(
      { id: recordId, state: 'in-flight' },
      {
        state: 'completed',
        fingerprint,
        responseStatus: response.status,
        responseContentType: response.contentType,
        responseBody: response.body,
        leaseExpiresOn: null,
      },
    );
    if (!updated.affected) throw inFlight();
  }

  /** A request that was refused or failed releases its key, so the client can retry it (e.g. after a top-up). */
  async release(recordId: string): Promise<void> {
    await this.records.delete({ id: recordId, state: 'in-flight' });
  }

  /**
   * Deletes an answered record before its 24 hours, so its key can be claimed by a new request: for an
   * implicit key whose job has ended. Only that record: one claimed meanwhile by another request stays.
   */
  async discardAnswer(recordId: string): Promise<void> {
    await this.records.delete({ id: recordId, state: 'completed' });
  }

  /** Deletes every record past its 24 hours; returns how many. */
  async sweepExpired(now = new Date()): Promise<number> {
    const result = await this.records.delete({ expiresOn: LessThanOrEqual(now) });
    return result.affected ?? 0;
  }

  private async deleteStaleClaim(recordId: string, now: Date): Promise<void> {
    await this.records
      .createQueryBuilder()
      .delete()
      .where('id = :recordId AND state = :state', { recordId, state: 'in-flight' })
      .andWhere(
        new Brackets((where) =>
          where.where('lease_expires_on IS NULL').orWhere('lease_expires_on <= :now', { now }),
        ),
      )
      .execute();
  }
}
