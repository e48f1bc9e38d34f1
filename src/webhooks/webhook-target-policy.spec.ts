import { WebhookTargetPolicy } from './webhook-target-policy';

describe('WebhookTargetPolicy', () => {
  it('is the outbound-URL policy with the reason webhooks need https', () => {
    const policy = new WebhookTargetPolicy({ WEBHOOK_ALLOW_PRIVATE_TARGETS: false });
    expect(policy.checkUrl('http://93.184.216.34/hook')).toEqual({
      allowed: false,
      reason: 'must use https (deliveries are HTTPS POSTs)',
    });
    expect(policy.checkUrl('https://127.0.0.1/hook')).toMatchObject({ allowed: false });
  });
});
