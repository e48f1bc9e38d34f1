import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Workspace } from '../account/workspace.entity';
import type { WebhookEventType } from './events/webhook-event-catalogue';

/**
 * The outbox: an event is written in the same transaction as the state change that causes it, then
 * delivered. `dedupeKey` (e.g. `transcription.completed:<id>`) makes "once per transcription" a constraint.
 */
@Entity('outbox_events')
@Index('idx_outbox_events_undispatched', ['dispatchedOn'])
export class OutboxEvent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 40 })
  type: WebhookEventType;

  @Index('uq_outbox_events_dedupe_key', { unique: true })
  @Column({ name: 'dedupe_key', type: 'varchar', length: 120 })
  dedupeKey: string;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  /**
   * The request id of the work that caused the event (the upload's, carried by its job): its deliveries log
   * with it and send it as X-Request-Id. Null when no request caused it (a retention purge, older rows).
   */
  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  /**
   * The W3C trace context of the work that caused the event (the job's span, when the service traces): its
   * deliveries are spans of the same trace and send it as `traceparent`. Null while tracing is off.
   */
  @Column({ type: 'varchar', length: 55, nullable: true })
  traceparent: string | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  /** Set once a delivery row exists for every subscribed endpoint. */
  @Column({ name: 'dispatched_on', type: 'timestamptz', nullable: true })
  dispatchedOn: Date | null;
}
