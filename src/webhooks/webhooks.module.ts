import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { JobCallbacks } from './job-callbacks.service';
import { OutboxEvent } from './outbox-event.entity';
import { WebhookDeliveryLogService } from './webhook-delivery-log.service';
import { WebhookDeliveryQueue } from './webhook-delivery-queue.service';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookHttpClient } from './webhook-http-client';
import { WebhookOutboxDispatcher } from './webhook-outbox-dispatcher.service';
import { WebhookTargetPolicy } from './webhook-target-policy';

@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint, OutboxEvent, WebhookDelivery]), AuditModule],
  controllers: [WebhookEndpointsController],
  providers: [
    WebhookDeliveryRepository,
    WebhookEndpointsService,
    WebhookDeliveryLogService,
    WebhookTargetPolicy,
    WebhookHttpClient,
    WebhookDeliveryQueue,
    WebhookDeliveryService,
    WebhookOutboxDispatcher,
    WebhookDeliveryProcessor,
    JobCallbacks,
  ],
  exports: [WebhookTargetPolicy, WebhookOutboxDispatcher, WebhookDeliveryService, JobCallbacks],
})
export class WebhooksModule {}
