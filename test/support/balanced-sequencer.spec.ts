// eslint-disable-next-line @typescript-eslint/no-require-imports
const { balancedShard } = require('./balanced-sequencer') as {
  balancedShard: (
    files: string[],
    index: number,
    count: number,
    weights: number[] | undefined,
    seconds: Record<string, number>,
  ) => string[];
};

describe('the balanced e2e shards', () => {
  const seconds = { a: 200, b: 190, c: 100, d: 90, e: 50, f: 40, g: 30 };
  const files = Object.keys(seconds);
  const load = (shard: string[]) => shard.reduce((sum, file) => sum + seconds[file as keyof typeof seconds], 0);

  it('puts every file in exactly one shard, the two longest apart', () => {
    const first = balancedShard(files, 1, 2, undefined, seconds);
    const second = balancedShard(files, 2, 2, undefined, seconds);
    expect([...first, ...second].sort()).toEqual(files);
    expect(first.includes('a')).not.toBe(first.includes('b'));
    expect(Math.abs(load(first) - load(second))).toBeLessThanOrEqual(50);
  });

  it('follows the weights, and counts an unlisted file as the median', () => {
    const first = balancedShard([...files, 'new'], 1, 2, [30, 70], seconds);
    expect(load(first.filter((file) => file !== 'new'))).toBeLessThan(300);
    const both = [...first, ...balancedShard([...files, 'new'], 2, 2, [30, 70], seconds)];
    expect(both.sort()).toEqual([...files, 'new'].sort());
  });
});
