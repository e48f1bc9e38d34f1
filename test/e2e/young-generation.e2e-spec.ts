import { randomUUID } from 'node:crypto';
import { freePort, ServiceProcess } from '../support/service-process';

const METRICS_TOKEN = `young-generation-${randomUUID()}`;

/** prom-client's default metric: the new space's size in bytes, as the process reports it. */
function newSpaceBytes(metrics: string): number {
  const line = metrics
    .split('\n')
    .find((text) => text.startsWith('nodejs_heap_space_size_total_bytes{space="new"}'));
  if (!line) throw new Error('no nodejs_heap_space_size_total_bytes{space="new"} in /metrics');
  return Number(line.split(' ').at(-1));
}

/**
 * A real `node dist/main.js` keeps its young generation within the cap (src/common/lifecycle/
 * young-generation.ts: held while it loads, at most 32 MB per semi-space once serving, where V8 alone goes to
 * 64 MB here; at rest an API process held ~60 MB more without it), read from its own /metrics after it loaded
 * and served requests; an operator's `--max-semi-space-size` in NODE_OPTIONS is left in charge.
 */
describe('Young generation of a real service process (node dist/main.js)', () => {
  const processes: ServiceProcess[] = [];
  afterAll(() => Promise.all(processes.map((service) => service.stop())));

  async function newSpaceAfterLoad(env: Record<string, string>): Promise<number> {
    const port = await freePort();
    const service = await new ServiceProcess({
      ROLE: 'api',
      PORT: String(port),
      METRICS_TOKEN,
      ...env,
    }).start();
    processes.push(service);
    const base = `http://127.0.0.1:${port}`;
    for (let round = 0; round < 20; round += 1) {
      await Promise.all(
        Array.from({ length: 10 }, () => fetch(`${base}/openapi.json`).then((r) => r.text())),
      );
    }
    const scraped = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    return newSpaceBytes(await scraped.text());
  }

  it('stays within the cap (two 32 MiB semi-spaces) through start-up and 200 requests', async () => {
    expect(await newSpaceAfterLoad({})).toBeLessThanOrEqual(64 * 2 ** 20);
  }, 60_000);

  it("is the operator's to size: NODE_OPTIONS=--max-semi-space-size=0 (V8's own sizing) grows past the cap", async () => {
    expect(await newSpaceAfterLoad({ NODE_OPTIONS: '--max-semi-space-size=0' })).toBeGreaterThan(
      64 * 2 ** 20,
    );
  }, 60_000);
});
