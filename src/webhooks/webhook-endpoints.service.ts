import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { AuditLog } from '../audit/audit-log.service';
import { auditUrl } from '../audit/audit-snapshot';
import type { Principal } from '../common/principal/principal';
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

/** What the audit log keeps of an endpoint: where it sends (origin and fingerprint of the URL), never a secret. */
function endpointFacts(
  endpoint: Pick<WebhookEndpoint, 'url' | 'events' | 'isActive'>,
): Record<string, unknown> {
  return { url: auditUrl(endpoint.url), events: [...endpoint.events], isActive: endpoint.isActive };
}

@Injectable()
export class WebhookEndpointsService {
  constructor(
    @InjectRepository(WebhookEndpoint) private readonly endpoints: Repository<WebhookEndpoint>,
    private readonly targets: WebhookTargetPolicy,
    private readonly audit: AuditLog,
  ) {}

  list(workspaceId: string): Promise<WebhookEndpoint[]> {
    return this.endpoints.find({ where: { workspaceId }, order: { createdOn: 'DESC', id: 'DESC' } });
  }

  /** Each change below commits with its audit event (`webhook.*`), in one transaction. */
  async create(principal: Principal, input: CreateWebhookEndpointDto): Promise<WebhookEndpoint> {
    const workspaceId = principal.workspaceId;
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
      const endpoint = await manager.save(
        manager.create(WebhookEndpoint, {
          workspaceId,
          url: input.url,
          events: input.events,
          secret: generateSigningSecret(),
          isActive: true,
        }),
      );
      await this.audit.record(manager, {
        principal,
        action: 'webhook.created',
        target: { type: 'webhook', id: endpoint.id },
        after: endpointFacts(endpoint),
      });
      return endpoint;
    });
  }

  /** The endpoint of this workspace, or 404 (another workspace's endpoint is not found either). */
  async get(workspaceId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.findOne({ where: { workspaceId, id } });
    if (!endpoint) throw ProblemException.notFound('The webhook endpoint');
    return endpoint;
  }

  /** Partial update with the create rules (the URL goes through the same target policy); `{}` is 422. */
  async update(
    principal: Principal,
    endpoint: WebhookEndpoint,
    input: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpoint> {
    if (input.url === undefined && input.events === undefined && input.isActive === undefined) {
      throw ProblemException.validation(
        { formErrors: ['give at least one of url, events, isActive'] },
        'The body changes nothing: give at least one of url, events, isActive.',
      );
    }
    if (input.url !== undefined) {
      const verdict = await this.targets.check(input.url);
      if (!verdict.allowed) throw ProblemException.field('url', `url ${verdict.reason}`);
    }
    return this.endpoints.manager.transaction(async (tx) => {
      const current = await this.locked(tx, principal.workspaceId, endpoint.id);
      const before = endpointFacts(current);
      if (input.url !== undefined) current.url = input.url;
      if (input.events !== undefined) current.events = input.events;
      if (input.isActive !== undefined) current.isActive = input.isActive;
      const saved = await tx.getRepository(WebhookEndpoint).save(current);
      await this.audit.record(tx, {
        principal,
        action: 'webhook.updated',
        target: { type: 'webhook', id: saved.id },
        before,
        after: endpointFacts(saved),
      });
      return saved;
    });
  }

  /**
   * A new secret signs from now on; the old one keeps signing beside it (second header) for 24 h so
   * receivers can switch without losing deliveries. A second rotation within the 24 h drops the oldest.
   */
  async rotateSecret(principal: Principal, id: string, now = new Date()): Promise<WebhookEndpoint> {
    return this.endpoints.manager.transaction(async (tx) => {
      const endpoint = await this.locked(tx, principal.workspaceId, id);
      endpoint.previousSecret = endpoint.secret;
      endpoint.previousSecretExpiresOn = new Date(now.getTime() + PREVIOUS_SECRET_VALIDITY_MS);
      endpoint.secret = generateSigningSecret();
      const saved = await tx.getRepository(WebhookEndpoint).save(endpoint);
      await this.audit.record(tx, {
        principal,
        action: 'webhook.secret_rotated',
        target: { type: 'webhook', id },
        details: { previousSecretExpiresOn: endpoint.previousSecretExpiresOn },
      });
      return saved;
    });
  }

  async delete(principal: Principal, id: string): Promise<void> {
    await this.endpoints.manager.transaction(async (tx) => {
      const endpoint = await this.locked(tx, principal.workspaceId, id);
      await tx.getRepository(WebhookEndpoint).delete({ workspaceId: principal.workspaceId, id });
      await this.audit.record(tx, {
        principal,
        action: 'webhook.deleted',
        target: { type: 'webhook', id },
        before: endpointFacts(endpoint),
      });
    });
  }

  /** The endpoint of this workspace, locked for the change; 404 otherwise. */
  private async locked(tx: EntityManager, workspaceId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await tx
      .getRepository(WebhookEndpoint)
      .findOne({ where: { workspaceId, id }, lock: { mode: 'pessimistic_write' } });
    if (!endpoint) throw ProblemException.notFound('The webhook endpoint');
    return endpoint;
  }
}
