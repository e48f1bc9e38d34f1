import { growthFactorFor, youngGenerationSizedByOperator } from './young-generation';

describe('youngGenerationSizedByOperator', () => {
  it.each([
    [['--max-semi-space-size=16'], undefined],
    [['--min-semi-space-size=4'], undefined],
    [['--max_semi_space_size=16'], undefined],
    [[], '--max-old-space-size=512 --max-semi-space-size=32'],
    [[], '  --min-semi-space-size=2  '],
  ])('execArgv %j, NODE_OPTIONS %j: the operator sized it', (execArgv, nodeOptions) => {
    expect(youngGenerationSizedByOperator(execArgv, nodeOptions)).toBe(true);
  });

  it.each([
    [[], undefined],
    [['--max-old-space-size=512', '--enable-source-maps'], ''],
    [[], '--max-old-space-size=512 --require ./semi-space-size.js'],
    [['--max-semi-space-sizes=3'], undefined],
  ])('execArgv %j, NODE_OPTIONS %j: nobody sized it', (execArgv, nodeOptions) => {
    expect(youngGenerationSizedByOperator(execArgv, nodeOptions)).toBe(false);
  });
});

describe('growthFactorFor (cap 32 MB per semi-space)', () => {
  const MiB = 2 ** 20;
  it.each([
    [2 * MiB, 2],
    [8 * MiB, 2],
    [16 * MiB, 2],
    [32 * MiB, 1],
    [64 * MiB, 1],
    [128 * MiB, 1],
  ])('a new space of %d bytes grows by %d (two doublings must stay within 2 × 32 MiB)', (bytes, factor) => {
    expect(growthFactorFor(bytes, 32)).toBe(factor);
  });
});
