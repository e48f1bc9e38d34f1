import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { SessionOnly } from '../common/principal/session-only.decorator';
import { UpdateAccountSettingsDto } from './account-settings.dto';
import { AccountSettingsService } from './account-settings.service';
import { AccountService } from './account.service';
import { UsageQueryDto } from './usage-query.dto';
import type { ResponseOf } from '../openapi/contract-types';

@Controller('v1/account')
export class AccountController {
  constructor(
    private readonly account: AccountService,
    private readonly settings: AccountSettingsService,
  ) {}

  @RequirePermission('account:read')
  @Get('balance')
  async balance(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'getBalance'>> {
    return { data: await this.account.balance(principal.workspaceId) };
  }

  @RequirePermission('account:read')
  @Get('usage')
  async usage(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UsageQueryDto,
  ): Promise<ResponseOf<'getUsage'>> {
    return { data: await this.account.usage(principal.workspaceId, query.months) };
  }

  /** An API key without a user gets 403 `forbidden`: there is no user to describe (docs/decisions.md). */
  @RequirePermission('account:read')
  @Get('profile')
  async profile(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'getProfile'>> {
    return { data: await this.account.profile(principal.workspaceId, principal.userId) };
  }

  /** Dashboard settings: a signed-in user only (403 `forbidden` for an API key). */
  @RequirePermission('account:read')
  @Get('settings')
  @SessionOnly()
  async getSettings(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'getAccountSettings'>> {
    return { data: await this.settings.get(principal.workspaceId) };
  }

  @RequirePermission('settings:write')
  @Patch('settings')
  @SessionOnly()
  async updateSettings(
    @CurrentPrincipal() principal: Principal,
    @Body() body: UpdateAccountSettingsDto,
  ): Promise<ResponseOf<'updateAccountSettings'>> {
    return { data: await this.settings.update(principal, body) };
  }
}
