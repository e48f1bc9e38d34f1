import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ResourceIdPipe } from '../common/http/resource-id.pipe';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyRequestLog } from './api-key-request-log.service';
import { CreateApiKeyDto, ListApiKeyRequestsQueryDto, toStatusFilter } from './api-keys.dto';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { SessionOnly } from '../common/principal/session-only.decorator';
import type { ResponseOf } from '../openapi/contract-types';

/** The dashboard's key management (settings, security area): a signed-in user only, never an API key. */
@SessionOnly()
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly requestLog: ApiKeyRequestLog,
  ) {}

  @RequirePermission('keys:own')
  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'listApiKeys'>> {
    return { data: await this.apiKeys.list(principal) };
  }

  @RequirePermission('keys:own')
  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateApiKeyDto,
  ): Promise<ResponseOf<'createApiKey', 201>> {
    return { data: await this.apiKeys.create(principal, body) };
  }

  @RequirePermission('keys:own')
  @Delete(':id')
  @HttpCode(204)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<void> {
    await this.apiKeys.revoke(principal, id);
  }

  @RequirePermission('keys:own')
  @Get(':id/requests')
  async requests(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Query() query: ListApiKeyRequestsQueryDto,
  ): Promise<ResponseOf<'listApiKeyRequests'>> {
    return {
      data: await this.requestLog.list(principal.workspaceId, id, {
        createdBy: this.apiKeys.onlyOwn(principal),
        limit: query.limit,
        status: toStatusFilter(query.status),
      }),
    };
  }
}
