import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { AccountController } from './account.controller';
import { AccountSettingsService } from './account-settings.service';
import { AccountService } from './account.service';
import { RetentionSettingsService } from './retention-settings.service';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Workspace, User]), AuditModule],
  controllers: [AccountController],
  // RetentionSettingsService is provided here, not imported with RetentionModule: the CLI imports this
  // module and has no storage for the purge.
  providers: [AccountService, AccountSettingsService, RetentionSettingsService],
  exports: [AccountService],
})
export class AccountModule {}
