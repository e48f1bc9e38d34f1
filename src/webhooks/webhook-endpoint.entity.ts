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

@Entity('webhook_endpoints')
@Index('idx_webhook_endpoints_workspace_created', ['workspaceId', 'createdOn'])
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'varchar', array: true })
  events: WebhookEventType[];

  /** Needed in clear to sign deliveries; returned once at creation, never listed. */
  @Column({ type: 'varchar', length: 100 })
  secret: string;

  /** The secret before the last rotation: deliveries carry its signature too until it expires (24 h). */
  @Column({ name: 'previous_secret', type: 'varchar', length: 100, nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_expires_on', type: 'timestamptz', nullable: true })
  previousSecretExpiresOn: Date | null;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
