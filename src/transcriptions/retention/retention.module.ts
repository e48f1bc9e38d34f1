import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Workspace } from '../../account/workspace.entity';
import { AuditModule } from '../../audit/audit.module';
import { RetentionPurgeScheduler } from './retention-purge.scheduler';
import { RetentionPurgeService } from './retention-purge.service';
import { RetentionSettingsService } from '../../account/retention-settings.service';
import { UploadedAudioService } from '../uploaded-audio/uploaded-audio.service';

/**
 * Per-workspace retention of audio and transcripts: its settings and the periodic purge (worker roles), which also
 * removes expired uploaded audio (UploadedAudioService, exported for the routes that store and read it).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Workspace]), AuditModule],
  providers: [RetentionSettingsService, RetentionPurgeService, RetentionPurgeScheduler, UploadedAudioService],
  exports: [RetentionSettingsService, RetentionPurgeService, UploadedAudioService],
})
export class RetentionModule {}
