import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { AccountController } from './account.controller';
import { AccountSettingsService } from './account-settings.service';
import { AccountService } from './account.service';
import { RetentionSettingsService } from '../transcriptions/retention/retention-settings.service';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';
import { WorkspaceProvisioningService } from './workspace-provisioning.service';

@Module({
  imports: [TypeOrmModule.forFeature([Workspace, User]), AuthModule, BillingModule],
  controllers: [AccountController],
  // RetentionSettingsService is provided here, not imported with RetentionModule: the CLI imports this
  // module and has no storage for the purge.
  providers: [AccountService, AccountSettingsService, RetentionSettingsService, WorkspaceProvisioningService],
  exports: [AccountService, WorkspaceProvisioningService],
})
export class AccountModule {}
