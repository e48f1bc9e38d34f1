import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Workspace } from '../../account/workspace.entity';
import { bigintNumber } from '../../common/database/bigint-number.transformer';

/**
 * A file uploaded ahead of its transcription (AssemblyAI's `POST /v2/upload`): stored once, named by the
 * `upload_url` answered, usable by jobs of its own workspace only until it expires (UPLOADED_AUDIO_TTL_HOURS);
 * each job takes its own copy, so deleting a job never removes the upload and the upload's expiry never
 * removes a job's audio.
 */
@Entity('uploaded_audio')
@Index('idx_uploaded_audio_expires', ['expiresAt'])
export class UploadedAudio {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ name: 'storage_key', type: 'varchar', length: 255 })
  storageKey: string;

  @Column({ name: 'file_name', type: 'varchar', length: 255 })
  fileName: string;

  @Column({ type: 'bigint', transformer: bigintNumber })
  size: number;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
