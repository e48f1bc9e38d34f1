import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ResourceIdPipe } from '../common/http/resource-id.pipe';
import { CreateWebhookEndpointDto } from './webhook-endpoint.dto';
import {
  toWebhookEndpointView,
  WebhookEndpointsService,
  WebhookEndpointView,
} from './webhook-endpoints.service';

@Controller('v1/webhooks')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<{ data: WebhookEndpointView[] }> {
    return { data: (await this.endpoints.list(principal.workspaceId)).map(toWebhookEndpointView) };
  }

  /** The only response that ever carries the signing secret. */
  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWebhookEndpointDto,
  ): Promise<{ data: WebhookEndpointView & { secret: string } }> {
    const endpoint = await this.endpoints.create(principal.workspaceId, body);
    return { data: { ...toWebhookEndpointView(endpoint), secret: endpoint.secret } };
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<void> {
    await this.endpoints.delete(principal.workspaceId, id);
  }
}
