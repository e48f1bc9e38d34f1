import { join } from 'node:path';
import type { Response } from 'supertest';
import { TEST_AUDIO_DIR } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { upload } from '../support/transcriptions';

const ADMIN_TOKEN = 'operator-token-0123456789abcdefghijklmnop';
const GO_FORWARD = join(TEST_AUDIO_DIR, 'pocketsphinx/goforward.wav');
const NOT_FOUND = 'https://errors.transcription.example/problems/not-found';
const UNAUTHORIZED = 'https://errors.transcription.example/problems/unauthorized';

const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

function expectProblem(response: Response, status: number, type: string): void {
  expect({ status: response.status, type: response.body?.type }).toEqual({ status, type });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
}

interface BoardQueue {
  name: string;
  readOnlyMode: boolean;
  counts: Record<string, number>;
}

/** The operators' queue dashboard: Bull Board at /admin/queues behind ADMIN_TOKEN. */
describe('Queue board (/admin/queues)', () => {
  describe('without ADMIN_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ ROLE: 'api' });
    });
    afterAll(() => t.close());

    it('does not exist: every /admin path is the ordinary 404, whatever the credential', async () => {
      for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin']) {
        expectProblem(await t.http().get(path), 404, NOT_FOUND);
        expectProblem(await t.http().get(path).set(bearer(ADMIN_TOKEN)), 404, NOT_FOUND);
      }
    });
  });

  describe('with ADMIN_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      // ROLE=api: no worker takes the job uploaded below, so it waits in the queue.
      t = await startTestApp({ ROLE: 'api', ADMIN_TOKEN });
    });
    afterAll(() => t.close());

    it('answers 401 with a Basic challenge without the token or with a wrong one', async () => {
      const attempts = [
        {},
        bearer('operator-token-0123456789abcdefghijklmnoX'),
        basic('admin', 'wrong'),
        basic(ADMIN_TOKEN, ''),
        { 'X-API-KEY': ADMIN_TOKEN },
      ];
      for (const [index, headers] of attempts.entries()) {
        for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/anything']) {
          const response = await t.http().get(path).set(headers);
          expect({ index, path, status: response.status }).toEqual({ index, path, status: 401 });
          expectProblem(response, 401, UNAUTHORIZED);
          expect(response.headers['www-authenticate']).toBe('Basic realm="admin"');
        }
      }
    });

    it('serves the board page with the Bearer token or with Basic (token as password), assets from this origin', async () => {
      for (const headers of [bearer(ADMIN_TOKEN), basic('operator', ADMIN_TOKEN)]) {
        const page = await t.http().get('/admin/queues').set(headers);
        expect(page.status).toBe(200);
        expect(page.headers['content-type']).toMatch(/^text\/html/);
        expect(page.text).toContain('<base href="/admin/queues/"');
        // A page policy (scripts and styles from this origin only), not the API's `default-src 'none'`, and
        // one that lets the page's `<base href>` resolve its relative asset URLs (a browser ignores it under
        // `base-uri 'none'` and every asset is then looked for under /admin/static/).
        const policy = String(page.headers['content-security-policy']);
        expect(policy).toContain("script-src 'self'");
        expect(policy).toContain("base-uri 'self'");
        expect(policy).toContain("frame-ancestors 'none'");
        expect(page.headers['x-powered-by']).toBeUndefined();
      }
      const page = await t.http().get('/admin/queues').set(bearer(ADMIN_TOKEN));
      const assets = [...page.text.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map((match) => match[1]);
      expect(assets.filter((asset) => asset.endsWith('.js')).length).toBeGreaterThan(0);
      expect(assets.filter((asset) => asset.endsWith('.css')).length).toBeGreaterThan(0);
      for (const asset of assets) {
        const response = await t.http().get(`/admin/queues/${asset}`).set(bearer(ADMIN_TOKEN));
        expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      }
      // Nothing on the page is loaded from another origin except the font stylesheet the CSP blocks.
      const external = [...page.text.matchAll(/(?:src|href)="(https?:\/\/[^"]+)"/g)].map((match) => match[1]);
      expect(external.every((url) => url.startsWith('https://fonts.googleapis.com/'))).toBe(true);
    });

    it('lists the transcription and webhook queues with their counts, read-only', async () => {
      const { apiKey } = await t.createWorkspace({ name: 'Queue board' });
      const created = await upload(t, apiKey, GO_FORWARD);
      expect(created.status).toBe(202);

      const response = await t.http().get('/admin/queues/api/queues').set(bearer(ADMIN_TOKEN));
      expect(response.status).toBe(200);
      const queues = (response.body as { queues: BoardQueue[] }).queues;
      expect(queues.map((queue) => queue.name).sort()).toEqual(['transcriptions', 'webhook-deliveries']);
      for (const queue of queues) expect(queue.readOnlyMode).toBe(true);
      const transcriptions = queues.find((queue) => queue.name === 'transcriptions')!;
      // The job just uploaded (another suite's worker may already have taken it: any state counts).
      const total = Object.values(transcriptions.counts).reduce((sum, count) => sum + count, 0);
      expect(total).toBeGreaterThanOrEqual(1);

      // Read-only: the board refuses to act on a queue.
      const pause = await t
        .http()
        .put('/admin/queues/api/queues/transcriptions/pause')
        .set(bearer(ADMIN_TOKEN));
      expect(pause.status).toBe(405);
    });
  });
});
