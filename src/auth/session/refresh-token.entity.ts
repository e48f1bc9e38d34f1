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

/**
 * One refresh token of a sign-in, stored as a SHA-256 hash. Every refresh rotates it: the old row gets
 * `rotatedOn` and a new row of the same family is issued. Presenting a rotated token again means it was
 * copied, so the whole family (that sign-in on every device it reached) is revoked. A sign-in is live while
 * one of its tokens is not revoked (revocation is always family-wide).
 */
@Entity('refresh_tokens')
// The sign-in check of every dashboard access token (`sid`, src/auth/jwt.strategy.ts): index-only.
@Index('idx_refresh_tokens_live_family', ['familyId', 'userId'], { where: '"revoked_on" IS NULL' })
export class RefreshToken {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_refresh_tokens' })
  id: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_refresh_tokens_user' })
  user?: User;

  /** All the tokens one sign-in rotated through share it. */
  @Index('idx_refresh_tokens_family')
  @Column({ name: 'family_id', type: 'uuid' })
  familyId: string;

  @Index('uq_refresh_tokens_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  @Column({ name: 'expires_on', type: 'timestamptz' })
  expiresOn: Date;

  @Column({ name: 'rotated_on', type: 'timestamptz', nullable: true })
  rotatedOn: Date | null;

  @Column({ name: 'revoked_on', type: 'timestamptz', nullable: true })
  revokedOn: Date | null;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
