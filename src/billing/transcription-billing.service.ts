import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { microToEur } from '../common/money';
import { ProblemException } from '../common/problem/problem.exception';
import { BillingConfig } from './billing.config';
import { BillingGate, type Admission, type AdmissionRequest } from './billing-gate.service';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';
import { jobCostMicro, pricePerMinuteMicro } from './pricing';
import type { BilledJob } from './workspace-job-history';

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
 * - release: at failure or deletion of an unfinished job, the reserved free transcription is given back.
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
   * The most audio a realtime session may receive before it is closed: what a free transcription covers when
   * it took one, else what the workspace's balance pays for at the tier's price now (unlimited with billing
   * off). Other open jobs' estimates are not held against it: settle checks the balance again at the end.
   */
  async liveAllowanceSeconds(
    job: Pick<BilledJob, 'workspaceId' | 'model' | 'usesFreeTranscription'>,
  ): Promise<number> {
    if (!this.config.BILLING_ENABLED) return Number.POSITIVE_INFINITY;
    if (job.usesFreeTranscription) return this.config.FREE_TRANSCRIPTION_MAX_MINUTES * 60;
    const workspace = await this.accounts.findWorkspace(job.workspaceId);
    const perSecondMicro = pricePerMinuteMicro(this.config, job.model) / 60;
    if (perSecondMicro === 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, Math.floor((workspace?.balanceMicro ?? 0) / perSecondMicro));
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
