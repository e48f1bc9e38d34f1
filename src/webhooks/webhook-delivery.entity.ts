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
import type { CallbackJob } from './job-callback';
import { OutboxEvent } from './outbox-event.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryAttempt {
  at: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/**
 * One delivery of one event to one endpoint, or to the callback of the job the event is about (a per-job
 * callback: `transcriptionId` instead of `endpointId`); its id is the stable X-Service-Delivery-Id.
 */
@Entity('webhook_deliveries')
/** One first delivery per (event, endpoint); redeliveries are further rows of the same pair. */
@Index('uq_webhook_deliveries_event_endpoint', ['eventId', 'endpointId'], {
  unique: true,
  where: 'redelivery_of IS NULL',
})
/** One callback delivery per event (a job's end): exactly once per end. */
@Index('uq_webhook_deliveries_event_callback', ['eventId'], {
  unique: true,
  where: 'transcription_id IS NOT NULL AND redelivery_of IS NULL',
})
@Index('idx_webhook_deliveries_endpoint_created', ['endpointId', 'createdOn'])
@Index('idx_webhook_deliveries_transcription', ['transcriptionId'])
@Check('chk_webhook_deliveries_target', '(endpoint_id IS NULL) <> (transcription_id IS NULL)')
@Index('idx_webhook_deliveries_status', ['status'])
@Check('chk_webhook_deliveries_status', "status IN ('pending', 'delivered', 'failed')")
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @ManyToOne(() => OutboxEvent, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id' })
  event?: OutboxEvent;

  /** The registered endpoint it goes to; null for a per-job callback. */
  @Column({ name: 'endpoint_id', type: 'uuid', nullable: true })
  endpointId: string | null;

  @ManyToOne(() => WebhookEndpoint, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id' })
  endpoint?: WebhookEndpoint | null;

  /**
   * The job whose callback it goes to (Transcription.callback); null for an endpoint's delivery. Deleting the
   * job (or its workspace) deletes the delivery: a pending one is never attempted again.
   */
  @Column({ name: 'transcription_id', type: 'uuid', nullable: true })
  transcriptionId: string | null;

  /** By entity name: the transcriptions module sits above this one (it emits the events). */
  @ManyToOne('Transcription', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'transcription_id' })
  transcription?: CallbackJob | null;

  /** The delivery this one repeats (POST …/redeliver); null for a first delivery. */
  @Column({ name: 'redelivery_of', type: 'uuid', nullable: true })
  redeliveryOf: string | null;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: WebhookDeliveryStatus;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attempts: WebhookDeliveryAttempt[];

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'completed_on', type: 'timestamptz', nullable: true })
  completedOn: Date | null;
}
