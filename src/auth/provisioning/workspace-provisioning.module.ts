import { Module } from '@nestjs/common';
import { BillingModule } from '../../billing/billing.module';
import { AuthModule } from '../auth.module';
import { WorkspaceProvisioningService } from './workspace-provisioning.service';

/**
 * A new workspace with its first user, API key and opening credit: sign-up (SessionModule) and the CLI. It sits
 * above the account data it writes, beside the API keys it issues, so the account module depends on neither auth
 * nor billing.
 */
@Module({
  imports: [AuthModule, BillingModule],
  providers: [WorkspaceProvisioningService],
  exports: [WorkspaceProvisioningService],
})
export class WorkspaceProvisioningModule {}
