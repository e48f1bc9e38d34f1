import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../account/user.entity';
import { Workspace } from '../account/workspace.entity';
import type { Scope } from '../common/principal/permission-table';

/** An API key, stored only as a SHA-256 hash with a visible prefix for recognition in listings and logs. */
@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('idx_api_keys_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /**
   * The user who created the key, for the profile; null once that user is deleted, or for a key an operator
   * created for the workspace alone. The key belongs to the workspace and keeps working either way.
   */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'user_id' })
  user?: User | null;

  /** The owner's label for the key (dashboard); empty for keys made before keys had names. */
  @Column({ type: 'varchar', length: 100, default: '' })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  @Index('uq_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'revoked_on', type: 'timestamptz', nullable: true })
  revokedOn: Date | null;

  @Column({ name: 'expires_on', type: 'timestamptz', nullable: true })
  expiresOn: Date | null;

  /** What the key may do (src/common/principal/permission-table.ts); keys made before scopes hold `admin`. */
  @Column({ type: 'text', array: true, default: () => "'{admin}'" })
  scopes: Scope[];

  /** Client networks (CIDR) the key is accepted from; null: any network. */
  @Column({ name: 'allowed_networks', type: 'text', array: true, nullable: true })
  allowedNetworks: string[] | null;

  /** Last authenticated use, written at most once a minute per key (ApiKeyService.noteUse). */
  @Column({ name: 'last_used_on', type: 'timestamptz', nullable: true })
  lastUsedOn: Date | null;
}
