import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../account/user.entity';
import { Workspace } from '../../account/workspace.entity';

/**
 * A dashboard sign-in (refresh-token family) made through a workspace's single sign-on. It acts in that
 * workspace only, whatever the user's active workspace is (src/auth/jwt.strategy.ts), and each of its refreshes
 * first refreshes at the provider with the provider's refresh token (stored encrypted): an account disabled
 * there ends the sign-in at its next refresh.
 */
@Entity('sso_sign_ins')
export class SsoSignIn {
  @PrimaryColumn({ name: 'family_id', type: 'uuid' })
  familyId: string;

  @Index('idx_sso_sign_ins_user')
  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @Index('idx_sso_sign_ins_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /** Null when the provider issued none: the sign-in then lasts until its own refresh token expires. */
  @Column({ name: 'provider_refresh_token_encrypted', type: 'text', nullable: true })
  providerRefreshTokenEncrypted: string | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
