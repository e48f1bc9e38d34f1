import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  OneToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Workspace } from '../../account/workspace.entity';
import type { Role } from '../../common/principal/permission-table';

/**
 * A workspace's single sign-on: its OpenID provider (issuer), the client the workspace registered there, the
 * email domains it admits, the role of a member it adds on first sign-in, and whether password sign-in is
 * refused for the workspace's members (owners keep it, audited). The client secret is stored encrypted
 * (src/auth/sso/secret-box.ts) and never answered.
 */
@Entity('sso_connections')
@Check('chk_sso_connections_role', `"default_role" IN ('admin', 'member', 'viewer')`)
export class SsoConnection {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @OneToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 2048 })
  issuer: string;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId: string;

  /** AES-256-GCM under a key derived from JWT_SECRET (secret-box.ts). */
  @Column({ name: 'client_secret_encrypted', type: 'text' })
  clientSecretEncrypted: string;

  /** Lower-case domains; a sign-in's verified email must end in `@<one of them>`. */
  @Column({ name: 'allowed_domains', type: 'text', array: true })
  allowedDomains: string[];

  @Column({ name: 'default_role', type: 'varchar', length: 16 })
  defaultRole: Exclude<Role, 'owner'>;

  @Column({ name: 'sso_required', type: 'boolean' })
  ssoRequired: boolean;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @UpdateDateColumn({ name: 'updated_on', type: 'timestamptz' })
  updatedOn: Date;
}
