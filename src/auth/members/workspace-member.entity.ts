import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { User } from '../../account/user.entity';
import { Workspace } from '../../account/workspace.entity';
import type { Role } from '../../common/principal/permission-table';

/** A user's membership of a workspace, with the role that decides what the user may do there. */
@Entity('workspace_members')
@Check('chk_workspace_members_role', `"role" IN ('owner', 'admin', 'member', 'viewer')`)
export class WorkspaceMember {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Index('idx_workspace_members_user')
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  /** owner | admin | member | viewer (src/common/principal/permission-table.ts); checked by the database too. */
  @Column({ type: 'varchar', length: 16 })
  role: Role;

  @CreateDateColumn({ name: 'joined_on', type: 'timestamptz' })
  joinedOn: Date;
}
