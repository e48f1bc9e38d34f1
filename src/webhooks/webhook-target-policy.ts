import { Injectable } from '@nestjs/common';
import { OutboundUrlConfig } from '../outbound-url/outbound-url.config';
import { OutboundUrlPolicy } from '../outbound-url/outbound-url-policy';

/** Where a webhook may be sent: the service's outbound-URL policy, https because deliveries are HTTPS POSTs. */
@Injectable()
export class WebhookTargetPolicy extends OutboundUrlPolicy {
  constructor(config: OutboundUrlConfig) {
    super({
      allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      httpsReason: 'deliveries are HTTPS POSTs',
    });
  }
}
