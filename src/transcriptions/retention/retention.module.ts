import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Workspace } from '../../account/workspace.entity';
import { AuditModule } from '../../audit/audit.module';
import { RetentionPurgeScheduler } from './retention-purge.scheduler';
import { RetentionPurgeService } from './retention-purge.service';
import { RetentionSettingsService } from '../../account/retention-settings.service';

/** Per-workspace retention of audio and transcripts: its settings and the periodic purge (worker roles). */
@Module({
  imports: [TypeOrmModule.forFeature([Workspace]), AuditModule],
  providers: [RetentionSettingsService, RetentionPurgeService, RetentionPurgeScheduler],
  exports: [RetentionSettingsService, RetentionPurgeService],
})
export class RetentionModule {}
