import { Controller, Get } from '@nestjs/common';
import { RequirePermission } from '../common/principal/require-permission.decorator';
import type { ResponseOf } from '../openapi/contract-types';
import { TiersService } from './tiers.service';

@Controller('v1/tiers')
export class TiersController {
  constructor(private readonly tiers: TiersService) {}

  /** Deployment facts, no workspace data: any credential of a workspace may read them (docs/decisions.md). */
  @RequirePermission('authenticated')
  @Get()
  async list(): Promise<ResponseOf<'listTiers'>> {
    return { data: await this.tiers.list() };
  }
}
