import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Workspace } from '../account/workspace.entity';
import { bigintNumber } from '../common/database/bigint-number.transformer';

export const LEDGER_ENTRY_KINDS = ['top-up', 'charge', 'adjustment'] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];

/**
 * The balance ledger: every change of a workspace balance is one row, written in the same transaction as
 * the balance update. A transcription is charged at most once (partial unique index).
 */
@Entity('balance_ledger')
@Index('idx_balance_ledger_workspace_created', ['workspaceId', 'createdOn'])
@Index('uq_balance_ledger_charge_per_transcription', ['transcriptionId'], {
  unique: true,
  where: "kind = 'charge'",
})
@Check('chk_balance_ledger_kind', "kind IN ('top-up', 'charge', 'adjustment')")
export class LedgerEntry {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 16 })
  kind: LedgerEntryKind;

  /** Signed: positive for top-ups, negative for charges. */
  @Column({ name: 'amount_micro', type: 'bigint', transformer: bigintNumber })
  amountMicro: number;

  @Column({ name: 'balance_after_micro', type: 'bigint', transformer: bigintNumber })
  balanceAfterMicro: number;

  /** Kept without a foreign key: the ledger outlives deleted transcriptions. */
  @Column({ name: 'transcription_id', type: 'uuid', nullable: true })
  transcriptionId: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  description: string | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
