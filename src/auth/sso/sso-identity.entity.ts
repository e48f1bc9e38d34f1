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

/**
 * Who a workspace's OpenID provider says a user is: (issuer, subject) → user. Found first at every sign-in, so
 * a changed email at the provider keeps the same user; made at the first sign-in (by verified email).
 */
@Entity('sso_identities')
@Index('uq_sso_identities_subject', ['workspaceId', 'issuer', 'subject'], { unique: true })
export class SsoIdentity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 2048 })
  issuer: string;

  @Column({ type: 'varchar', length: 255 })
  subject: string;

  @Index('idx_sso_identities_user')
  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
