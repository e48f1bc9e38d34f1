import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Workspace } from './workspace.entity';

@Entity('users')
export class User {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('uq_users_email', { unique: true })
  @Column({ type: 'varchar', length: 320 })
  email: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  name: string | null;

  @Column({ name: 'preferred_language', type: 'varchar', length: 8, default: 'en' })
  preferredLanguage: string;

  /** The workspace the user acts in; null when the user was removed from every workspace. */
  @Column({ name: 'active_workspace_id', type: 'uuid', nullable: true })
  activeWorkspaceId: string | null;

  @ManyToOne(() => Workspace, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'active_workspace_id' })
  activeWorkspace?: Workspace | null;

  /** argon2id hash (PHC string); null: the user cannot sign in with a password (API keys only). */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true, select: false })
  passwordHash: string | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
