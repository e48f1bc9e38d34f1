import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { ProblemException } from '../common/problem/problem.exception';
import { CreateWebhookEndpointDto } from './webhook-endpoint.dto';
import { WebhookEndpoint, WebhookEventType } from './webhook-endpoint.entity';
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
    return this.endpoints.save(
      this.endpoints.create({
        workspaceId,
        url: input.url,
        events: input.events,
        secret: generateSigningSecret(),
        isActive: true,
      }),
    );
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const result = await this.endpoints.delete({ workspaceId, id });
    if (!result.affected) throw ProblemException.notFound('The webhook endpoint');
  }
}
