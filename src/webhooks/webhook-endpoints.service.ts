import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { CreateWebhookEndpointDto } from './webhook-endpoint.dto';
import type { WebhookEventType } from './events/webhook-event-catalogue';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookTargetPolicy } from './webhook-target-policy';

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: WebhookEventType[];
  isActive: boolean;
  createdOn: Date;
}

export function toWebhookEndpointView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    isActive: endpoint.isActive,
    createdOn: endpoint.createdOn,
  };
}

/**
 * Every event is POSTed to every endpoint of the workspace that subscribes to it: the cap bounds the fan-out
 * of one job to a few outgoing requests (issue 9). 422 `webhook-endpoint-limit` beyond it.
 */
export const MAX_WEBHOOK_ENDPOINTS_PER_WORKSPACE = 10;

export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

@Injectable()
export class WebhookEndpointsService {
  constructor(
    @InjectRepository(WebhookEndpoint) private readonly endpoints: Repository<WebhookEndpoint>,
    private readonly targets: WebhookTargetPolicy,
  ) {}

  list(workspaceId: string): Promise<WebhookEndpoint[]> {
    return this.endpoints.find({ where: { workspaceId }, order: { createdOn: 'DESC', id: 'DESC' } });
  }

  async create(workspaceId: string, input: CreateWebhookEndpointDto): Promise<WebhookEndpoint> {
    const verdict = await this.targets.check(input.url);
    if (!verdict.allowed) throw ProblemException.field('url', `url ${verdict.reason}`);
    return this.endpoints.manager.transaction(async (manager) => {
      // Creations of one workspace take turns (a transaction-scoped advisory lock), so concurrent requests
      // cannot each count 9 and end at 11. The workspace row itself is not locked: balances update it.
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhook-endpoints:${workspaceId}`]);
      const existing = await manager.count(WebhookEndpoint, { where: { workspaceId } });
      if (existing >= MAX_WEBHOOK_ENDPOINTS_PER_WORKSPACE) {
        throw new ProblemException(
          'webhook-endpoint-limit',
          `A workspace has at most ${MAX_WEBHOOK_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first.`,
          { limit: MAX_WEBHOOK_ENDPOINTS_PER_WORKSPACE },
        );
      }
      return manager.save(
        manager.create(WebhookEndpoint, {
          workspaceId,
          url: input.url,
          events: input.events,
          secret: generateSigningSecret(),
          isActive: true,
        }),
      );
    });
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const result = await this.endpoints.delete({ workspaceId, id });
    if (!result.affected) throw ProblemException.notFound('The webhook endpoint');
  }
}
