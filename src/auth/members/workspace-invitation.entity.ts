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
import { Workspace } from '../../account/workspace.entity';
import type { Role } from '../../common/principal/permission-table';

/**
 * An invitation to join a workspace with a role: its token is shown once to the inviter and stored only as a
 * SHA-256 hash; it is single-use (accepted_on) and expires (expires_on). Resending replaces the token.
 */
@Entity('workspace_invitations')
@Check('chk_workspace_invitations_role', `"role" IN ('owner', 'admin', 'member', 'viewer')`)
export class WorkspaceInvitation {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('idx_workspace_invitations_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 320 })
  email: string;

  @Column({ type: 'varchar', length: 16 })
  role: Role;

  @Index('uq_workspace_invitations_token', { unique: true })
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  /** The inviter (null once that user is deleted). */
  @Column({ name: 'invited_by', type: 'uuid', nullable: true })
  invitedBy: string | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'expires_on', type: 'timestamptz' })
  expiresOn: Date;

  @Column({ name: 'accepted_on', type: 'timestamptz', nullable: true })
  acceptedOn: Date | null;

  @Column({ name: 'revoked_on', type: 'timestamptz', nullable: true })
  revokedOn: Date | null;
}
