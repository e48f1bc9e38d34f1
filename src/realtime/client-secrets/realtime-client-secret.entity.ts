import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../../account/user.entity';
import { Workspace } from '../../account/workspace.entity';
import type { SessionConfig } from '../realtime-session-config';

/**
 * A short-lived credential for one realtime session, minted by an authenticated call for a page that cannot
 * hold an API key (a browser). Stored only as a SHA-256 hash; it opens a single session of its workspace,
 * starting from the session configuration it was minted with.
 */
@Entity('realtime_client_secrets')
export class RealtimeClientSecret {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('idx_realtime_client_secrets_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /** Who minted it (the session's transcription is theirs); null for a key without a user. */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'user_id' })
  user?: User | null;

  @Index('uq_realtime_client_secrets_hash', { unique: true })
  @Column({ name: 'secret_hash', type: 'char', length: 64 })
  secretHash: string;

  /** The configuration the session starts with. */
  @Column({ type: 'jsonb' })
  session: SessionConfig;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'expires_on', type: 'timestamptz' })
  expiresOn: Date;

  /** When a session was opened with it; a used secret opens no other. */
  @Column({ name: 'used_on', type: 'timestamptz', nullable: true })
  usedOn: Date | null;
}
