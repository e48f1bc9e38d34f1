import { MembersModule } from '../members/members.module';
import { Module, OnApplicationBootstrap } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { User } from '../../account/user.entity';
import { Workspace } from '../../account/workspace.entity';
import { AuditModule } from '../../audit/audit.module';
import { ProcessConfig } from '../../common/lifecycle/process.config';
import { AuthModule } from '../auth.module';
import { WorkspaceProvisioningModule } from '../provisioning/workspace-provisioning.module';
import { KnownDeviceService } from './known-device.service';
import { LoginThrottleService } from './login-throttle.service';
import { RefreshToken } from './refresh-token.entity';
import { SessionCookies } from './session-cookies';
import { SessionController, SignupEnabledGuard } from './session.controller';
import { SessionService } from './session.service';
import { UserPasswordService } from './user-password.service';
import { SsoModule } from '../sso/sso.module';
import { SsoSignInController } from './sso-sign-in.controller';

/** Dashboard sign-in, refresh and sign-out; sign-up creates workspaces through WorkspaceProvisioningModule. */
@Module({
  imports: [
    TypeOrmModule.forFeature([User, Workspace, RefreshToken]),
    AuthModule,
    AuditModule,
    WorkspaceProvisioningModule,
    MembersModule,
    SsoModule,
  ],
  controllers: [SessionController, SsoSignInController],
  providers: [
    SessionService,
    UserPasswordService,
    LoginThrottleService,
    KnownDeviceService,
    SignupEnabledGuard,
  ],
  exports: [SessionService, UserPasswordService],
})
export class SessionModule implements OnApplicationBootstrap {
  constructor(
    private readonly cookies: SessionCookies,
    private readonly config: ProcessConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.ROLE !== 'worker') this.cookies.warnWhenInsecure();
  }
}
