import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/account.module';
import { User } from '../account/user.entity';
import { Workspace } from '../account/workspace.entity';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { WorkspaceProvisioningModule } from '../auth/provisioning/workspace-provisioning.module';
import { RefreshToken } from '../auth/session/refresh-token.entity';
import { UserPasswordService } from '../auth/session/user-password.service';
import { BillingModule } from '../billing/billing.module';
import { Configuration } from '../config/configuration';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { BalanceTopUpCommand, TokenIssueCommand, UserDeleteCommand } from './account.commands';
import { ApiKeyCreateCommand, ApiKeyRevokeCommand } from './api-key.commands';
import { AutoReloadCommand } from './auto-reload.command';
import { EngineTiersCommand } from './engine-tiers.command';
import { ModelsListCommand, ModelsPullCommand } from './models.commands';
import { RetentionSettingsService } from '../account/retention-settings.service';
import { DemoEnsureCommand } from './demo.command';
import { UserSetPasswordCommand } from './user.commands';
import { WorkspaceCreateCommand, WorkspaceRetentionCommand } from './workspace.commands';

@Module({})
export class CliModule {
  static register(configuration: Configuration): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.register(configuration),
        DatabaseModule,
        AuthModule,
        AuditModule,
        AccountModule,
        BillingModule,
        WorkspaceProvisioningModule,
        TypeOrmModule.forFeature([User, Workspace, RefreshToken]),
      ],
      providers: [
        WorkspaceCreateCommand,
        DemoEnsureCommand,
        WorkspaceRetentionCommand,
        RetentionSettingsService,
        ApiKeyCreateCommand,
        ApiKeyRevokeCommand,
        BalanceTopUpCommand,
        UserDeleteCommand,
        UserSetPasswordCommand,
        UserPasswordService,
        TokenIssueCommand,
        AutoReloadCommand,
        EngineTiersCommand,
        ModelsListCommand,
        ModelsPullCommand,
      ],
    };
  }
}
