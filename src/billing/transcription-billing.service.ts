import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { microToEur } from '../common/money';
import { ProblemException } from '../common/problem/problem.exception';
import { BillingConfig } from './billing.config';
import { BillingGate, type Admission, type AdmissionRequest } from './billing-gate.service';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';
import {
  type LiveSessionEnd,
  type LiveSessionSettlement,
  type LiveSessionUsage,
  secondsCovered,
  settleLiveSession,
} from './live-session-settlement';
import { costMicro, jobCostMicro, pricePerMinuteMicro } from './pricing';
import type { ModelTier } from '../common/model-tier-catalogue';
import type { BilledJob, BilledLiveSession } from './workspace-job-history';

/** What settling a completed job came to. */
export type Settlement =
  | { kind: 'charged'; costMicro: number }
  /** The balance no longer covers the audio: the job fails unbilled (the reason is its error message). */
  | { kind: 'refused'; reason: string };

/**
 * Decoded audio may pass the duration a job was admitted with by this much (container timestamps and
 * decoder padding differ by milliseconds); more means its header understated the audio.
 */
export const ADMITTED_DURATION_TOLERANCE_SECONDS = 1;

/**
 * The money lifecycle of a transcription, and the only writer of free-transcription counts (balances move
 * only through LedgerService). Each step runs in the caller's transaction, next to the state change it
 * belongs to:
 * - precheck: before an upload's body is read, the part of the billing gate that needs no duration;
 * - reserve: at creation, under the workspace row's lock, the gate and the free transcription it uses;
 * - settle: at completion, the charge for the decoded duration (or a refusal when the balance is short);
 * - release: at failure or deletion of an unfinished job, the reserved free transcription is given back;
 * - for realtime sessions: reserveLiveWindow (what a paid session holds, raised a window at a time) and
 *   settleLiveSession, the one settlement every end of a session goes through (live-session-settlement.ts).
 * With BILLING_ENABLED=false (self-hosting) this is the one place that turns billing off: every job is admitted
 * (no 402, no unbilled-audio 429), estimated and charged 0 without a ledger entry (so no balance.low), and
 * takes no free transcription; usage still counts the minutes, which come from the jobs themselves.
 */
@Injectable()
export class TranscriptionBilling {
  constructor(
    private readonly accounts: LedgerRepository,
    private readonly gate: BillingGate,
    private readonly ledger: LedgerService,
    private readonly config: BillingConfig,
  ) {}

  /**
   * Refuses (402/429) a workspace that could start no transcription whatever the file: no free
   * transcription left and less than the minimum balance available, or the unbilled-audio budget spent.
   * Without a lock: reserve decides again, with the duration, in the creating transaction.
   */
  async precheck(workspaceId: string): Promise<void> {
    if (!this.config.BILLING_ENABLED) return;
    const workspace = await this.accounts.findWorkspace(workspaceId);
    if (!workspace) throw ProblemException.notFound('The workspace');
    // An unknown duration fits a free transcription and estimates nothing: only the minimum balance counts.
    await this.gate.admit(this.accounts.outsideTransaction(), workspace, {
      model: 'standard',
      durationSeconds: null,
      channels: null,
    });
  }

  /** Locks the workspace row, applies the gate and takes the free transcription the job uses, if any. */
  async reserve(tx: EntityManager, workspaceId: string, request: AdmissionRequest): Promise<Admission> {
    if (!this.config.BILLING_ENABLED) return { usesFree: false, estimateMicro: 0 };
    const workspace = await this.accounts.lockWorkspace(tx, workspaceId);
    if (!workspace) throw ProblemException.notFound('The workspace');
    const admission = await this.gate.admit(tx, workspace, request);
    if (admission.usesFree) {
      await this.accounts.takeFreeTranscription(tx, workspace.id);
    }
    return admission;
  }

  /**
   * The most audio a job may decode (TranscribeRequest.admittedSeconds): the duration it was admitted and
   * quoted with at upload, plus ADMITTED_DURATION_TOLERANCE_SECONDS, and never more than a free
   * transcription covers when it uses one. Undefined for a job created without a duration (before uploads
   * measured one).
   */
  decodeLimitSeconds(job: { duration: number | null; usesFreeTranscription: boolean }): number | undefined {
    if (job.duration === null) return undefined;
    const admitted = job.duration + ADMITTED_DURATION_TOLERANCE_SECONDS;
    return job.usesFreeTranscription
      ? Math.min(admitted, this.config.FREE_TRANSCRIPTION_MAX_MINUTES * 60)
      : admitted;
  }

  /**
   * The most audio (seconds) a realtime session may receive with what it holds now: what a free transcription
   * covers when it took one, else what its reservation pays for at `tier`'s price (unlimited with billing off).
   */
  liveAllowanceSeconds(
    session: Pick<BilledLiveSession, 'usesFreeTranscription' | 'liveReservedMicro'>,
    tier: ModelTier,
  ): number {
    if (!this.config.BILLING_ENABLED) return Number.POSITIVE_INFINITY;
    if (session.usesFreeTranscription) return this.config.FREE_TRANSCRIPTION_MAX_MINUTES * 60;
    return secondsCovered(session.liveReservedMicro ?? 0, pricePerMinuteMicro(this.config, tier));
  }

  /**
   * What a paid realtime session holds against the balance after raising it by up to `windowSeconds` of audio
   * at `tier`'s price, out of the balance no other open paid job holds (BillingGate.heldMicro), under the
   * workspace row's lock. Unchanged when nothing is free (the session then ends at what it holds); 0 reserved
   * on a free transcription or with billing off. `session.id` null: a session being opened.
   */
  async reserveLiveWindow(
    tx: EntityManager,
    session: Pick<BilledLiveSession, 'workspaceId' | 'usesFreeTranscription' | 'liveReservedMicro'> & {
      id: string | null;
    },
    tier: ModelTier,
    windowSeconds: number,
  ): Promise<number> {
    const current = session.liveReservedMicro ?? 0;
    if (!this.config.BILLING_ENABLED || session.usesFreeTranscription) return current;
    const workspace = await this.accounts.lockWorkspace(tx, session.workspaceId);
    if (!workspace) return current;
    const held = await this.gate.heldMicro(tx, session.workspaceId, session.id);
    const free = workspace.balanceMicro - held - current;
    const window = costMicro(windowSeconds, pricePerMinuteMicro(this.config, tier));
    return current + Math.max(0, Math.min(free, window));
  }

  /**
   * The settlement of a realtime session, whatever ended it (`end`): settleLiveSession decides from what it
   * received and delivered, its reservation and the balance (locked here); a charge is posted to the ledger
   * with the session's id (the entry outlives a deleted record). A `release` changes nothing here: the caller
   * fails or removes the session and gives its free transcription back (release).
   */
  async settleLiveSession(
    tx: EntityManager,
    session: BilledLiveSession,
    end: LiveSessionEnd,
    usage: LiveSessionUsage,
  ): Promise<LiveSessionSettlement> {
    const workspace = this.config.BILLING_ENABLED
      ? await this.accounts.lockWorkspace(tx, session.workspaceId)
      : null;
    const settlement = settleLiveSession(end, usage, {
      billingEnabled: this.config.BILLING_ENABLED,
      usesFreeTranscription: session.usesFreeTranscription,
      pricePerMinuteMicro: pricePerMinuteMicro(this.config, session.model),
      reservedMicro: session.liveReservedMicro,
      balanceMicro: workspace?.balanceMicro ?? 0,
    });
    if (settlement.kind === 'charge' && settlement.costMicro > 0) {
      await this.ledger.post(
        {
          workspaceId: session.workspaceId,
          kind: 'charge',
          amountMicro: -settlement.costMicro,
          transcriptionId: session.id,
          description: `${session.model} realtime session, ${Math.ceil(usage.receivedSeconds - 1e-9)} s${end === 'closed' ? '' : ` (${end})`}`,
        },
        tx,
      );
    }
    return settlement;
  }

  /**
   * Charges a completed job for its decoded duration (× its channels when multichannel); a job on a free
   * transcription costs nothing.
   */
  async settle(tx: EntityManager, job: BilledJob, durationSeconds: number): Promise<Settlement> {
    // A job reserved before billing was switched off completes free as well.
    const cost =
      !this.config.BILLING_ENABLED || job.usesFreeTranscription
        ? 0
        : jobCostMicro(durationSeconds, pricePerMinuteMicro(this.config, job.model), job.channels);
    if (cost === 0) return { kind: 'charged', costMicro: 0 };
    const workspace = await this.accounts.lockWorkspace(tx, job.workspaceId);
    if (!workspace || workspace.balanceMicro < cost) {
      return {
        kind: 'refused',
        reason: `INSUFFICIENT_BALANCE: the ${durationSeconds.toFixed(1)} s of audio cost ${microToEur(cost)} EUR, more than the balance of ${microToEur(workspace?.balanceMicro ?? 0)} EUR`,
      };
    }
    await this.ledger.post(
      {
        workspaceId: job.workspaceId,
        kind: 'charge',
        amountMicro: -cost,
        transcriptionId: job.id,
        description: `${job.model} transcription, ${Math.ceil(durationSeconds)} s${job.channels === null ? '' : ` × ${job.channels} channels`}`,
      },
      tx,
    );
    return { kind: 'charged', costMicro: cost };
  }

  /**
   * Gives back the free transcription an unfinished job reserved (it failed or was deleted); a completed
   * job keeps it used. Returns whether one was given back.
   */
  async release(tx: EntityManager, job: BilledJob): Promise<boolean> {
    if (!job.usesFreeTranscription || job.status === 'completed') return false;
    await this.accounts.giveBackFreeTranscription(tx, job.workspaceId);
    return true;
  }
}
