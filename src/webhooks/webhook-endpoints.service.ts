import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './webhook-endpoint.dto';
import { PREVIOUS_SECRET_VALIDITY_MS } from './webhook-signature';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookTargetPolicy } from './webhook-target-policy';
import type { Schema, SerializesTo } from '../openapi/contract-types';

export type WebhookEndpointView = SerializesTo<Schema<'WebhookEndpoint'>>;

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
 * of one job to a few outgoing requests (no amplification). 422 `webhook-endpoint-limit` beyond it.
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

  /** The endpoint of this workspace, or 404 (another workspace's endpoint is not found either). */
  async get(workspaceId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.findOne({ where: { workspaceId, id } });
    if (!endpoint) throw ProblemException.notFound('The webhook endpoint');
    return endpoint;
  }

  /** Partial update with the create rules (the URL goes through the same target policy); `{}` is 422. */
  async update(endpoint: WebhookEndpoint, input: UpdateWebhookEndpointDto): Promise<WebhookEndpoint> {
    if (input.url === undefined && input.events === undefined && input.isActive === undefined) {
      throw ProblemException.validation(
        { formErrors: ['give at least one of url, events, isActive'] },
        'The body changes nothing: give at least one of url, events, isActive.',
      );
    }
    if (input.url !== undefined) {
      const verdict = await this.targets.check(input.url);
      if (!verdict.allowed) throw ProblemException.field('url', `url ${verdict.reason}`);
      endpoint.url = input.url;
    }
    if (input.events !== undefined) endpoint.events = input.events;
    if (input.isActive !== undefined) endpoint.isActive = input.isActive;
    return this.endpoints.save(endpoint);
  }

  /**
   * A new secret signs from now on; the old one keeps signing beside it (second header) for 24 h so
   * receivers can switch without losing deliveries. A second rotation within the 24 h drops the oldest.
   */
  async rotateSecret(workspaceId: string, id: string, now = new Date()): Promise<WebhookEndpoint> {
    const endpoint = await this.get(workspaceId, id);
    endpoint.previousSecret = endpoint.secret;
    endpoint.previousSecretExpiresOn = new Date(now.getTime() + PREVIOUS_SECRET_VALIDITY_MS);
    endpoint.secret = generateSigningSecret();
    return this.endpoints.save(endpoint);
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const result = await this.endpoints.delete({ workspaceId, id });
    if (!result.affected) throw ProblemException.notFound('The webhook endpoint');
  }
}
