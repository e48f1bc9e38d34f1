import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Workspace } from '../account/workspace.entity';

/**
 * Where a deleted transcription stood in the list, so a list cursor naming it keeps working ("list and
 * delete" loops). Only the sort key is kept: the record, its transcript and its file are gone. Kept for
 * DELETED_CURSOR_RETENTION_DAYS (transcription-list-cursor.ts).
 */
@Entity('transcription_tombstones')
@Index('idx_transcription_tombstones_deleted', ['deletedOn'])
export class TranscriptionTombstone {
  /** The deleted transcription's id. */
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  /** The deleted transcription's createdOn: with the id, its place in the list order. */
  @Column({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;

  @CreateDateColumn({ name: 'deleted_on', type: 'timestamptz' })
  deletedOn: Date;
}
