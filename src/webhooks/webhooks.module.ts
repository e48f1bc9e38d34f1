import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboxEvent } from './outbox-event.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookTargetPolicy } from './webhook-target-policy';

@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint, OutboxEvent, WebhookDelivery])],
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookTargetPolicy],
  exports: [WebhookTargetPolicy],
})
export class WebhooksModule {}
