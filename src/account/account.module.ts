import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { BillingModule } from '../billing/billing.module';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';
import { WorkspaceProvisioningService } from './workspace-provisioning.service';

@Module({
  imports: [TypeOrmModule.forFeature([Workspace, User]), AuthModule, BillingModule],
  controllers: [AccountController],
  providers: [AccountService, WorkspaceProvisioningService],
  exports: [AccountService, WorkspaceProvisioningService],
})
export class AccountModule {}
