import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Workspace } from '../account/workspace.entity';
import { eurToMicro, microToEur } from '../common/money';
import { ProblemException } from '../common/problem/problem.exception';
import { BillingConfig } from './billing.config';
import type { ModelTier } from '../common/model-tier-catalogue';
import { jobCostMicro, pricePerMinuteMicro } from './pricing';
import { type OpenPaidJob, WorkspaceJobHistory } from './workspace-job-history';

const DAY_MS = 24 * 3600 * 1000;

export interface AdmissionRequest {
  model: ModelTier;
  /** From the upload probe; null when the container states none (then only the minimum balance applies). */
  durationSeconds: number | null;
  /** Channels recognised one by one (multichannel, billed per channel-minute); null when mixed to mono. */
  channels: number | null;
}

export interface Admission {
  usesFree: boolean;
  /** The quote: stated duration × the tier's price now, in micro-EUR; 0 when free, null without a duration. */
  estimateMicro: number | null;
}

/**
 * Who may start a transcription, decided under the workspace row's lock in the transaction that creates it
 * (docs/billing.md, "What a workspace can get without paying"):
 * 1. A free transcription covers audio up to FREE_TRANSCRIPTION_MAX_MINUTES (of audio, whatever its channels); a
 *    longer file is paid.
 * 2. A paid job starts only when the balance covers its estimated cost (stated duration × price, × channels when
 *    multichannel) on top of what the workspace's other open paid jobs hold (their estimates, and the
 *    reservations of its realtime sessions); without a stated duration, that free balance must be at least
 *    MINIMUM_BALANCE_EUR (the charge at completion is still checked against the balance).
 * 3. Failed jobs are never billed, so the audio of a workspace's failed jobs is bounded:
 *    UNBILLED_AUDIO_MINUTES_PER_DAY over the last 24 hours, after which new jobs get 429 until it frees up.
 * The same rules with the duration unknown (a free transcription left, or the minimum balance) are a
 * necessary condition for any upload, checked before its body is read (TranscriptionBilling.precheck).
 */
@Injectable()
export class BillingGate {
  constructor(
    private readonly config: BillingConfig,
    private readonly jobs: WorkspaceJobHistory,
  ) {}

  /**
   * Throws the refusal, or says whether the job uses one of the workspace's free transcriptions and what it
   * is estimated to cost (0 on a free transcription, null when the duration is unknown).
   */
  async admit(tx: EntityManager, workspace: Workspace, request: AdmissionRequest): Promise<Admission> {
    await this.assertUnbilledBudgetLeft(tx, workspace.id);
    const freeLimitSeconds = this.config.FREE_TRANSCRIPTION_MAX_MINUTES * 60;
    const fitsFree = request.durationSeconds === null || request.durationSeconds <= freeLimitSeconds;
    if (workspace.freeTranscriptionsRemaining > 0 && fitsFree) return { usesFree: true, estimateMicro: 0 };

    const minimumMicro = eurToMicro(this.config.MINIMUM_BALANCE_EUR);
    const estimateMicro =
      request.durationSeconds === null
        ? 0
        : jobCostMicro(
            request.durationSeconds,
            pricePerMinuteMicro(this.config, request.model),
            request.channels,
          );
    const committedMicro = await this.heldMicro(tx, workspace.id);
    const available = workspace.balanceMicro - committedMicro;
    if (available < Math.max(minimumMicro, estimateMicro)) {
      const reasons = [
        !fitsFree && workspace.freeTranscriptionsRemaining > 0
          ? `free transcriptions cover at most ${this.config.FREE_TRANSCRIPTION_MAX_MINUTES} min of audio`
          : 'the workspace has no free transcription left',
        estimateMicro > 0
          ? `this file costs about ${microToEur(estimateMicro)} EUR`
          : `starting a transcription needs a balance of at least ${this.config.MINIMUM_BALANCE_EUR} EUR`,
        committedMicro > 0
          ? `${microToEur(committedMicro)} EUR of the ${microToEur(workspace.balanceMicro)} EUR balance is held by transcriptions in progress`
          : `the balance is ${microToEur(workspace.balanceMicro)} EUR`,
      ];
      throw new ProblemException('insufficient-balance', `${reasons.join('; ')}.`, {
        balance: microToEur(workspace.balanceMicro),
        freeRemaining: workspace.freeTranscriptionsRemaining,
        minimumBalance: this.config.MINIMUM_BALANCE_EUR,
      });
    }
    return { usesFree: false, estimateMicro: request.durationSeconds === null ? null : estimateMicro };
  }

  /**
   * What the workspace's open paid jobs hold against its balance: a file job its estimated cost (when its
   * duration is known), a realtime session its reservation. `exceptJobId`: a session raising its own.
   */
  async heldMicro(
    tx: EntityManager,
    workspaceId: string,
    exceptJobId: string | null = null,
  ): Promise<number> {
    const open = await this.jobs.openPaidJobs(tx, workspaceId);
    return open.filter((job) => job.id !== exceptJobId).reduce((sum, job) => sum + this.holdOf(job), 0);
  }

  private holdOf(job: OpenPaidJob): number {
    if (job.liveReservedMicro !== null) return job.liveReservedMicro;
    if (job.duration === null) return 0;
    return jobCostMicro(job.duration, pricePerMinuteMicro(this.config, job.model), job.channels);
  }

  private async assertUnbilledBudgetLeft(tx: EntityManager, workspaceId: string): Promise<void> {
    const since = new Date(Date.now() - DAY_MS);
    const failed = await this.jobs.failedAudioSince(tx, workspaceId, since);
    const usedMinutes = failed.seconds / 60;
    const budget = this.config.UNBILLED_AUDIO_MINUTES_PER_DAY;
    if (usedMinutes < budget) return;
    const retryAfterSeconds = failed.oldest
      ? Math.max(1, Math.ceil((failed.oldest.getTime() + DAY_MS - Date.now()) / 1000))
      : 3600;
    throw new ProblemException(
      'unbilled-processing-limit',
      `Failed transcriptions are not billed, and this workspace's failed jobs hold ${Math.round(usedMinutes)} min of audio in the last 24 hours, the most allowed (${budget} min). Try again later.`,
      {},
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}
