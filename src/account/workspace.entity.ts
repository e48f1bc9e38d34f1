import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '../common/database/bigint-number.transformer';

/** A workspace (a "directory" in product terms): owns data, balance and free transcriptions. Money in micro-EUR. */
@Entity('workspaces')
@Check('chk_workspaces_free_transcriptions', 'free_transcriptions_remaining >= 0')
@Check(
  'chk_workspaces_retention_days',
  '(audio_retention_days IS NULL OR audio_retention_days >= 0) AND (transcript_retention_days IS NULL OR transcript_retention_days >= 0)',
)
export class Workspace {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 120, unique: true })
  slug: string;

  @Column({ name: 'balance_micro', type: 'bigint', default: 0, transformer: bigintNumber })
  balanceMicro: number;

  @Column({ name: 'free_transcriptions_remaining', type: 'integer', default: 0 })
  freeTranscriptionsRemaining: number;

  @Column({ name: 'low_balance_threshold_micro', type: 'bigint', default: 0, transformer: bigintNumber })
  lowBalanceThresholdMicro: number;

  /** True while a downward crossing of the threshold would emit balance.low; re-armed by a rise above it. */
  @Column({ name: 'low_balance_armed', type: 'boolean', default: true })
  lowBalanceArmed: boolean;

  @Column({ name: 'auto_reload_enabled', type: 'boolean', default: false })
  autoReloadEnabled: boolean;

  @Column({ name: 'auto_reload_threshold_micro', type: 'bigint', nullable: true, transformer: bigintNumber })
  autoReloadThresholdMicro: number | null;

  @Column({ name: 'auto_reload_amount_micro', type: 'bigint', nullable: true, transformer: bigintNumber })
  autoReloadAmountMicro: number | null;

  /** Days a finished job's audio is kept (from completion or failure); null keeps it. RetentionPurgeService. */
  @Column({ name: 'audio_retention_days', type: 'integer', nullable: true })
  audioRetentionDays: number | null;

  /** Days a completed job's text is kept (from completion); null keeps it. RetentionPurgeService. */
  @Column({ name: 'transcript_retention_days', type: 'integer', nullable: true })
  transcriptRetentionDays: number | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
