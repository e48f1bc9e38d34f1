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
import { OutboxEvent } from './outbox-event.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryAttempt {
  at: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** One delivery of one event to one endpoint; its id is the stable X-Service-Delivery-Id. */
@Entity('webhook_deliveries')
/** One first delivery per (event, endpoint); redeliveries are further rows of the same pair. */
@Index('uq_webhook_deliveries_event_endpoint', ['eventId', 'endpointId'], {
  unique: true,
  where: 'redelivery_of IS NULL',
})
@Index('idx_webhook_deliveries_endpoint_created', ['endpointId', 'createdOn'])
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

  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId: string;

  @ManyToOne(() => WebhookEndpoint, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id' })
  endpoint?: WebhookEndpoint;

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
