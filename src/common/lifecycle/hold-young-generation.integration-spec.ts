import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const HOLD = path.join(
  __dirname,
  '..',
  '..',
  '..',
  'dist',
  'common',
  'lifecycle',
  'hold-young-generation.js',
);

/**
 * A fresh node process that allocates as the service's processes do while they load (many objects, a share of
 * them surviving), and reports its new space's size (MB): held at its start with the hold loaded first, grown
 * without it or when the operator sized it.
 */
function newSpaceMbAfterAllocating(preload: boolean, nodeOptions?: string): number {
  const script = `${preload ? `require(${JSON.stringify(HOLD)});` : ''}
    let kept = [];
    for (let i = 0; i < 3e6; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 1e5) kept = []; }
    const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size / 2 ** 20));`;
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: nodeOptions ?? '' };
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env }));
}

describe('hold-young-generation (a real node process)', () => {
  beforeAll(() => {
    if (!fs.existsSync(HOLD)) throw new Error(`${HOLD} is missing: npm run build`);
  });

  it('keeps the new space at its starting size where V8 alone grows it', () => {
    const held = newSpaceMbAfterAllocating(true);
    const alone = newSpaceMbAfterAllocating(false);
    expect(held).toBeLessThanOrEqual(4);
    expect(alone).toBeGreaterThan(held * 4);
  });

  it("leaves the operator's --max-semi-space-size (NODE_OPTIONS) in charge", () => {
    expect(newSpaceMbAfterAllocating(true, '--max-semi-space-size=16')).toBeGreaterThan(8);
  });
});
