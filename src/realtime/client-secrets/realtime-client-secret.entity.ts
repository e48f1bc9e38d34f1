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
import { ApiKey } from '../../auth/api-key.entity';
import type { SessionConfig } from '../realtime-session-config';

/** The WebSocket protocol a client secret opens a session of. */
export type ClientSecretProtocol = 'openai' | 'assemblyai';

/**
 * A short-lived credential for one realtime session, minted by an authenticated call for a page that cannot
 * hold an API key (a browser). Stored only as a SHA-256 hash; it opens a single session of its workspace,
 * starting from the session configuration it was minted with, and only while the credential that minted it
 * still would (`apiKeyId`, else the user and `signInId`): see RealtimeClientSecretRepository.consume.
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

  /** The API key that minted it: the secret opens a session only while the key is live. */
  @Column({ name: 'api_key_id', type: 'uuid', nullable: true })
  apiKeyId: string | null;

  @ManyToOne(() => ApiKey, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'api_key_id' })
  apiKey?: ApiKey | null;

  /**
   * Minted with a dashboard access token: the sign-in (refresh-token family, the token's `sid`) it belongs to,
   * which must still be live; null for a token of no sign-in (`token:issue`) or for a key. With no key, the
   * user (`userId`) must still exist and act in this workspace.
   */
  @Column({ name: 'sign_in_id', type: 'uuid', nullable: true })
  signInId: string | null;

  @Index('uq_realtime_client_secrets_hash', { unique: true })
  @Column({ name: 'secret_hash', type: 'char', length: 64 })
  secretHash: string;

  /**
   * Which WebSocket it opens: `openai` (POST /v1/realtime/client_secrets, for /v1/realtime) or `assemblyai` (GET
   * /v3/token, for /v3/ws). A secret presented on the other is refused and stays unused.
   */
  @Column({ type: 'varchar', length: 16, default: 'openai' })
  protocol: ClientSecretProtocol;

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
