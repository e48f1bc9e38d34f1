import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { AuthModule } from '../auth.module';
import { SsoSettingsController } from './sso.controller';
import { SsoService } from './sso.service';

/** Single sign-on with a workspace's own OpenID provider: its setting; the sign-in routes are SessionModule's. */
@Module({
  imports: [AuditModule, AuthModule],
  controllers: [SsoSettingsController],
  providers: [SsoService],
  exports: [SsoService],
})
export class SsoModule {}
