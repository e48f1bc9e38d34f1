import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Workspace } from '../account/workspace.entity';

@Entity('vocabularies')
@Index('idx_vocabularies_workspace_created', ['workspaceId', 'createdOn'])
export class Vocabulary {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'jsonb' })
  words: string[];

  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' })
  createdOn: Date;
}
