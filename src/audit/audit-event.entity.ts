import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AuditAction, AuditActorType, AuditCredential, AuditTargetType } from './audit-catalogue';

/**
 * One security-relevant act (docs/decisions.md, "Audit log"). Append-only: the database refuses UPDATE, DELETE
 * and TRUNCATE of this table (trigger `audit_events_append_only`), except the DELETE of the retention purge
 * run inside the function `audit_events_purge` (migration AuditLog1795887965496); `at` is always the inserting
 * transaction's time, whatever the INSERT says. No foreign keys: an event outlives the user, key, webhook or
 * transcription it names, and a cascade would be refused anyway.
 */
@Entity('audit_events')
@Index('idx_audit_events_workspace_at', ['workspaceId', 'at', 'id'])
@Index('idx_audit_events_workspace_target', ['workspaceId', 'targetId'])
@Index('idx_audit_events_workspace_actor_user', ['workspaceId', 'actorUserId'])
@Index('idx_audit_events_workspace_actor_key', ['workspaceId', 'actorApiKeyId'])
export class AuditEvent {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_audit_events' })
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  /** Set by the database (the transaction's now()), never by the writer. */
  @Index('idx_audit_events_at')
  @Column({ type: 'timestamptz', default: () => 'now()' })
  at: Date;

  @Column({ type: 'varchar', length: 64 })
  action: AuditAction;

  @Column({ name: 'actor_type', type: 'varchar', length: 16 })
  actorType: AuditActorType;

  @Column({ name: 'actor_user_id', type: 'uuid', nullable: true })
  actorUserId: string | null;

  @Column({ name: 'actor_api_key_id', type: 'uuid', nullable: true })
  actorApiKeyId: string | null;

  @Column({ name: 'actor_credential', type: 'varchar', length: 16, nullable: true })
  actorCredential: AuditCredential | null;

  /** The client's address as `request.ip` had it (TRUST_PROXY); null for the CLI and background work. */
  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true })
  clientIp: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  @Column({ name: 'target_type', type: 'varchar', length: 32, nullable: true })
  targetType: AuditTargetType | null;

  @Column({ name: 'target_id', type: 'uuid', nullable: true })
  targetId: string | null;

  @Column({ type: 'jsonb', nullable: true })
  before: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  after: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  details: Record<string, unknown> | null;
}
