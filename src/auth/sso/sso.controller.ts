import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { CurrentPrincipal } from '../../common/principal/current-principal.decorator';
import type { Principal } from '../../common/principal/principal';
import { RequirePermission } from '../../common/principal/require-permission.decorator';
import type { ResponseOf } from '../../openapi/contract-types';
import { PutSsoConnectionDto } from './sso.dto';
import { SsoService } from './sso.service';

/** The workspace's single sign-on setting (owners: the provider decides who is whom). */
@Controller('v1/workspace/sso')
export class SsoSettingsController {
  constructor(private readonly sso: SsoService) {}

  @RequirePermission('sso:manage')
  @Get()
  async get(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'getSsoConnection'>> {
    return { data: await this.sso.get(principal.workspaceId) };
  }

  @RequirePermission('sso:manage')
  @Put()
  async put(
    @CurrentPrincipal() principal: Principal,
    @Body() body: PutSsoConnectionDto,
  ): Promise<ResponseOf<'putSsoConnection'>> {
    return { data: await this.sso.put(principal, body) };
  }

  @RequirePermission('sso:manage')
  @Delete()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.sso.remove(principal);
  }
}
