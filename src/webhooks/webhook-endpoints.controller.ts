import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { ResourceIdPipe } from '../common/http/resource-id.pipe';
import { validationPipe } from '../common/http/validation-pipe';
import {
  CreateWebhookEndpointDto,
  ListWebhookDeliveriesQueryDto,
  UpdateWebhookEndpointDto,
} from './webhook-endpoint.dto';
import { WebhookDeliveryLogService } from './webhook-delivery-log.service';
import { toWebhookEndpointView, WebhookEndpointsService } from './webhook-endpoints.service';
import type { ResponseOf } from '../openapi/contract-types';

@RequirePermission('webhooks')
@Controller('v1/webhooks')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveryLogService,
  ) {}

  private readonly validation = validationPipe();

  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'listWebhooks'>> {
    return { data: (await this.endpoints.list(principal.workspaceId)).map(toWebhookEndpointView) };
  }

  /** The only response that ever carries the signing secret. */
  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWebhookEndpointDto,
  ): Promise<ResponseOf<'createWebhook', 201>> {
    const endpoint = await this.endpoints.create(principal, body);
    return { data: { ...toWebhookEndpointView(endpoint), secret: endpoint.secret } };
  }

  /**
   * The endpoint is looked up before the body is judged: another workspace's id is 404 whatever the body
   * (as with every id route), so the body is validated here rather than by the global pipe.
   */
  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Body() body: unknown,
  ): Promise<ResponseOf<'updateWebhook'>> {
    const endpoint = await this.endpoints.get(principal.workspaceId, id);
    const input = (await this.validation.transform(body ?? {}, {
      type: 'body',
      metatype: UpdateWebhookEndpointDto,
    })) as UpdateWebhookEndpointDto;
    return { data: toWebhookEndpointView(await this.endpoints.update(principal, endpoint, input)) };
  }

  /** The second and last kind of response that carries a signing secret: the new one, once. */
  @Post(':id/rotate-secret')
  @HttpCode(200)
  async rotateSecret(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'rotateWebhookSecret'>> {
    const endpoint = await this.endpoints.rotateSecret(principal, id);
    return {
      data: {
        ...toWebhookEndpointView(endpoint),
        secret: endpoint.secret,
        previousSecretExpiresOn: endpoint.previousSecretExpiresOn!,
      },
    };
  }

  /** As for PATCH: 404 for an id not of the workspace comes before the query is judged. */
  @Get(':id/deliveries')
  async listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Query() rawQuery: Record<string, unknown>,
  ): Promise<ResponseOf<'listWebhookDeliveries'>> {
    const endpoint = await this.endpoints.get(principal.workspaceId, id);
    const query = (await this.validation.transform(rawQuery, {
      type: 'query',
      metatype: ListWebhookDeliveriesQueryDto,
    })) as ListWebhookDeliveriesQueryDto;
    return this.deliveries.list(endpoint, query.limit, query.cursor);
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  async redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Param('deliveryId', ResourceIdPipe) deliveryId: string,
  ): Promise<ResponseOf<'redeliverWebhookDelivery', 202>> {
    return { data: await this.deliveries.redeliver(principal.workspaceId, id, deliveryId) };
  }

  @Post(':id/test')
  @HttpCode(202)
  async test(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'testWebhook', 202>> {
    return { data: await this.deliveries.sendTest(principal.workspaceId, id) };
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<void> {
    await this.endpoints.delete(principal, id);
  }
}
