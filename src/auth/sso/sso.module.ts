import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { AuthModule } from '../auth.module';
import { SsoService } from './sso.service';

/** Single sign-on with a workspace's own OpenID provider (the routes are SessionModule's, which signs in). */
@Module({
  imports: [AuditModule, AuthModule],
  providers: [SsoService],
  exports: [SsoService],
})
export class SsoModule {}
