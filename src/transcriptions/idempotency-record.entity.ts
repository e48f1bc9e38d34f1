import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type IdempotencyState = 'in-flight' | 'completed';

/**
 * One row per (workspace, Idempotency-Key): the unique index, not a check-then-insert, settles races.
 * An in-flight row is a claim held under a lease the request renews while it runs; a crashed process stops
 * renewing, and the next request with the key takes the claim over once the lease has run out. The row is
 * completed in the transaction that creates the transcription, so either both exist or neither does.
 */
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

  /**
   * SHA-256 over method, form fields, file name and file content. Known only once the body has been read,
   * so it is set when the record is completed (null while in flight: the claim is taken before the body).
   */
  @Column({ type: 'char', length: 64, nullable: true })
  fingerprint: string | null;

  @Column({ type: 'varchar', length: 16 })
  state: IdempotencyState;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  /** The exact bytes of the first answer (UTF-8 text), replayed as they were. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @Column({ name: 'response_content_type', type: 'varchar', length: 100, nullable: true })
  responseContentType: string | null;

  /** While in flight: the claim is its holder's until then (renewed while the request runs). */
  @Column({ name: 'lease_expires_on', type: 'timestamptz', nullable: true })
  leaseExpiresOn: Date | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'expires_on', type: 'timestamptz' })
  expiresOn: Date;
}
