import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Principal } from '../common/principal/principal';
import { ProblemException } from '../common/problem/problem.exception';
import {
  type IdempotencyClaim,
  IdempotencyService,
  implicitIdempotencyKey,
  parseIdempotencyKey,
  type StoredResponse,
} from './idempotency.service';
import { TranscriptionsService } from './transcriptions.service';
import { isOpen } from './transcription-state';

/** What a request without Idempotency-Key does when an identical one (same principal, fingerprint) came first. */
export type KeylessRepeat =
  /** Nothing: it is a new request. */
  | 'new-request'
  /** It is given the first one's job while that job is queued or processing (the OpenAI route's retries). */
  | 'attach-while-open';

/**
 * One upload's Idempotency-Key, from its claim to the end of the request. The key is an explicit header, or,
 * for a keyless request whose route attaches repeats, the key derived from its principal and fingerprint
 * (claimed only once the fingerprint is known). While this request holds a claim its lease is renewed.
 */
export class IdempotentUpload {
  private recordId: string | null;
  private lease: { stop: () => void } | null = null;

  constructor(
    private readonly store: IdempotencyService,
    private readonly principal: Principal,
    private readonly explicit: IdempotencyClaim | null,
    private readonly isOpen: (transcriptionId: string) => Promise<boolean>,
  ) {
    this.recordId = explicit?.kind === 'claimed' ? explicit.recordId : null;
    if (this.recordId) this.lease = store.holdClaim(this.recordId);
  }

  /** A retry of a request that was admitted: it is answered whatever the workspace could start now. */
  get repeatsAnAdmission(): boolean {
    return this.explicit?.kind === 'answered';
  }

  get hasKey(): boolean {
    return this.explicit !== null;
  }

  /**
   * The answer this request repeats, once its fingerprint is known: the stored answer of an answered key
   * (a different request with that key is refused, 422), or, for a keyless repeat that attaches, the
   * admission of the identical request's open job. Null: this request is carried out (holding the key).
   */
  async earlierAnswer(fingerprint: string, keyless: KeylessRepeat): Promise<StoredResponse | null> {
    if (this.explicit?.kind === 'answered') return this.store.replay(this.explicit, fingerprint);
    const attachable = this.explicit === null && keyless === 'attach-while-open';
    return attachable ? this.claimImplicitKey(fingerprint) : null;
  }

  /** Stores this request's answer in the transaction that creates its job: both commit or neither. */
  async complete(tx: EntityManager, fingerprint: string, answer: StoredResponse): Promise<void> {
    if (this.recordId) await this.store.complete(tx, this.recordId, fingerprint, answer);
  }

  /** The request failed or was refused: its key is free for a corrected retry (a completed key stays). */
  async release(): Promise<void> {
    if (this.recordId) await this.store.release(this.recordId).catch(() => undefined);
  }

  stopLease(): void {
    this.lease?.stop();
  }

  /**
   * Claims the key derived from the principal and fingerprint. While the job of the identical request that
   * answered it is queued or processing, that request's answer is returned; once that job has ended (or was
   * deleted) its record is set aside and this request holds the key and starts a job.
   */
  private async claimImplicitKey(fingerprint: string): Promise<StoredResponse | null> {
    const key = implicitIdempotencyKey(this.principal.rateLimitKey, fingerprint);
    for (let attempt = 0; attempt < 3; attempt++) {
      const claim = await this.store.claim(this.principal.workspaceId, key).catch((error: unknown) => {
        throw isInFlight(error) ? identicalInFlight() : error;
      });
      if (claim.kind === 'claimed') {
        this.recordId = claim.recordId;
        this.lease = this.store.holdClaim(claim.recordId);
        return null;
      }
      const answer = this.store.replay(claim, fingerprint);
      if (await this.isOpen(admittedTranscriptionId(answer))) return answer;
      await this.store.discardAnswer(claim.recordId);
    }
    throw new ProblemException(
      'idempotency-key-in-flight',
      'Identical requests are contending; retry shortly.',
      {},
      { 'Retry-After': '1' },
    );
  }
}

/** The job an upload's admission answer names. */
export function admittedTranscriptionId(answer: StoredResponse): string {
  return (JSON.parse(answer.body) as { data: { id: string } }).data.id;
}

const isInFlight = (error: unknown): boolean =>
  error instanceof ProblemException && error.slug === 'idempotency-key-in-flight';

const identicalInFlight = (): ProblemException =>
  new ProblemException(
    'idempotency-key-in-flight',
    'An identical request is still being admitted; retry when it has been (its job is then shared).',
    {},
    { 'Retry-After': '1' },
  );

/**
 * The Idempotency-Key wrapper both upload routes run their intake in (docs/decisions.md, "Idempotency-Key"):
 * the header's key is claimed before the body (a malformed key 400, one still in flight 409); `admit` runs
 * with the key; whatever it throws releases the key; the lease stops when it ends.
 */
@Injectable()
export class UploadIdempotency {
  constructor(
    private readonly store: IdempotencyService,
    private readonly transcriptions: TranscriptionsService,
  ) {}

  async run<T>(
    principal: Principal,
    header: string | string[] | undefined,
    admit: (key: IdempotentUpload) => Promise<T>,
  ): Promise<T> {
    const key = await this.claim(principal, header);
    try {
      return await admit(key);
    } catch (error) {
      await key.release();
      throw error;
    } finally {
      key.stopLease();
    }
  }

  private async claim(
    principal: Principal,
    header: string | string[] | undefined,
  ): Promise<IdempotentUpload> {
    const key = parseIdempotencyKey(header);
    const claim = key ? await this.store.claim(principal.workspaceId, key) : null;
    return new IdempotentUpload(this.store, principal, claim, (id) =>
      this.isStillOpen(principal.workspaceId, id),
    );
  }

  private async isStillOpen(workspaceId: string, transcriptionId: string): Promise<boolean> {
    const state = await this.transcriptions.getState(workspaceId, transcriptionId).catch((error: unknown) => {
      if (error instanceof ProblemException && error.slug === 'not-found') return null;
      throw error;
    });
    return state !== null && isOpen(state.status);
  }
}
