import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type IdempotencyState = 'in-flight' | 'completed';

/** One row per (workspace, Idempotency-Key): the unique index, not a check-then-insert, settles races. */
@Entity('idempotency_records')
@Index('uq_idempotency_workspace_key', ['workspaceId', 'key'], { unique: true })
@Index('idx_idempotency_expires', ['expiresOn'])
@Check('chk_idempotency_state', "state IN ('in-flight', 'completed')")
export class IdempotencyRecord {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ type: 'uuid' })
  key: string;

  /** SHA-256 over method, path, form fields and file content. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;

  @Column({ type: 'varchar', length: 16 })
  state: IdempotencyState;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'expires_on', type: 'timestamptz' })
  expiresOn: Date;
}
