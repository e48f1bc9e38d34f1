import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { User } from '../account/user.entity';
import { AuditModule } from '../audit/audit.module';
import { ApiKey } from './api-key.entity';
import { ApiKeyNetworks } from './api-key-networks.service';
import { ApiKeyRequest } from './api-key-request.entity';
import { ApiKeyRequestLog } from './api-key-request-log.service';
import { ApiKeyRequestLogMiddleware } from './api-key-request-log.middleware';
import { ApiKeyService } from './api-key.service';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyBearerStrategy, ApiKeyHeaderStrategy } from './api-key.strategy';
import { AuthenticationGuard } from './authentication.guard';
import { CredentialResolver } from './credential-resolver.service';
import { JwtStrategy } from './jwt.strategy';
import { SessionCookies } from './session/session-cookies';
import { TokenService } from './token.service';

@Module({
  imports: [PassportModule, AuditModule, TypeOrmModule.forFeature([ApiKey, ApiKeyRequest, User])],
  controllers: [ApiKeysController],
  providers: [
    ApiKeyService,
    ApiKeysService,
    ApiKeyRequestLog,
    ApiKeyRequestLogMiddleware,
    ApiKeyNetworks,
    TokenService,
    JwtStrategy,
    ApiKeyHeaderStrategy,
    ApiKeyBearerStrategy,
    CredentialResolver,
    SessionCookies,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
  ],
  exports: [
    ApiKeyService,
    TokenService,
    CredentialResolver,
    SessionCookies,
    ApiKeyRequestLog,
    ApiKeyRequestLogMiddleware,
    ApiKeyNetworks,
  ],
})
export class AuthModule {}
