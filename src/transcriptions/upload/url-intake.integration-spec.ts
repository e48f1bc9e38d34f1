import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FileStorage } from '../../storage/file-storage';
import { WebhookTargetPolicy } from '../../webhooks/webhook-target-policy';
import { fetchAudioUrl } from './url-intake';

/**
 * A redirect from an allowed URL to a private one, with private targets NOT allowed. The first hop would have
 * to be a public https server, which a test cannot run, so the policy lets exactly the first (local) URL
 * through and judges every redirect target with the real default policy — what the e2e suite cannot reach.
 */
describe('fetchAudioUrl: every redirect target is checked again', () => {
  let server: Server;
  let first: string;
  const strict = new WebhookTargetPolicy({ WEBHOOK_ALLOW_PRIVATE_TARGETS: false });
  let redirectTo = '';

  beforeAll(async () => {
    server = createServer((_request, response) => response.writeHead(302, { Location: redirectTo }).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    first = `http://127.0.0.1:${(server.address() as AddressInfo).port}/start`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const policy = {
    checkUrl: (url: string) => (url === first ? { allowed: true as const } : strict.checkUrl(url)),
  } as WebhookTargetPolicy;
  const fetchFirst = () =>
    fetchAudioUrl(first, {} as FileStorage, policy, {
      maxBytes: 1_000_000,
      timeoutMs: 5_000,
      allowPrivateTargets: false,
    });

  it.each([
    ['https://127.0.0.1/audio.wav', /redirect to https:\/\/127\.0\.0\.1\/audio\.wav: .*loopback/],
    ['https://169.254.169.254/latest/meta-data', /redirect to .*169\.254\.169\.254.*link-local/],
    ['https://[::ffff:10.0.0.1]/a.wav', /redirect to .*private/],
    ['http://example.com/a.wav', /redirect to http:\/\/example\.com\/a\.wav: must use https/],
  ])('refuses a redirect to %s', async (target, reason) => {
    redirectTo = target;
    await expect(fetchFirst()).rejects.toThrow(reason);
  });
});
