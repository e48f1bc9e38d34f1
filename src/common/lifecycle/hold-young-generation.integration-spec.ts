import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const LIFECYCLE = path.join(__dirname, '..', '..', '..', 'dist', 'common', 'lifecycle');
const HOLD = path.join(LIFECYCLE, 'hold-young-generation.js');
const RULES = path.join(LIFECYCLE, 'young-generation.js');
const MiB = 2 ** 20;

/**
 * A fresh node process runs `setup`, then allocates as the service's processes do (many objects, a share of
 * them surviving, about 100 kB per turn of the event loop, as a server's requests come), and reports its new
 * space's size in bytes.
 */
function newSpaceAfterAllocating(setup: string, nodeOptions = ''): number {
  const script = `${setup}
    (async () => {
      let kept = [];
      for (let batch = 0; batch < 3000; batch++) {
        for (let i = 0; i < 1e3; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 1e5) kept = []; }
        await new Promise((resolve) => setImmediate(resolve));
      }
      const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      process.stdout.write(String(space.space_size));
      process.exit(0);
    })();`;
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: nodeOptions };
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env }));
}

describe('the young generation of a real node process', () => {
  beforeAll(() => {
    if (!fs.existsSync(HOLD)) throw new Error(`${HOLD} is missing: npm run build`);
  });

  it('held (hold-young-generation loaded first): stays at its starting size where V8 alone grows it', () => {
    const held = newSpaceAfterAllocating(`require(${JSON.stringify(HOLD)});`);
    const alone = newSpaceAfterAllocating('');
    expect(held).toBeLessThanOrEqual(4 * MiB);
    expect(alone).toBeGreaterThan(32 * MiB);
  });

  it('capped: grows again once serving, to the cap per semi-space and no further', () => {
    const capped = newSpaceAfterAllocating(
      `require(${JSON.stringify(HOLD)}); require(${JSON.stringify(RULES)}).capYoungGeneration([], '', 4);`,
    );
    expect(capped).toBeGreaterThan(4 * MiB);
    expect(capped).toBeLessThanOrEqual(8 * MiB);
  });

  it("leaves the operator's --max-semi-space-size (NODE_OPTIONS) in charge of both steps", () => {
    const sized = newSpaceAfterAllocating(
      `require(${JSON.stringify(HOLD)}); require(${JSON.stringify(RULES)}).capYoungGeneration([], process.env.NODE_OPTIONS, 4);`,
      '--max-semi-space-size=16',
    );
    expect(sized).toBe(32 * MiB);
  });
});
