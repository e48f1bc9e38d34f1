// Jest's `--shard=i/n` cuts the files by a hash of their paths, blind to how long each runs: the two e2e lanes
// of `npm test` (scripts/run-tests.mjs) took 831 s and 1462 s, the README and quick-start runner specs (400 s
// together) both landing in one. This sequencer shares the files out by their measured seconds instead
// (test/support/e2e-file-seconds.json, from a CI run's e2e lanes; a file not listed counts as the median), the
// longest first, each to the shard furthest below its share. Shares are even unless STT_TEST_SHARD_WEIGHTS
// gives them ("46,54": the first shard gets 46 % of the seconds). Ordering within a shard is Jest's own.
const { readFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const SECONDS = JSON.parse(readFileSync(join(__dirname, 'e2e-file-seconds.json'), 'utf8'));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 1 : sorted[Math.floor(sorted.length / 2)];
}

/** The files of shard `index` (1-based) of `count`, balanced by seconds against `weights`. */
function balancedShard(files, index, count, weights, seconds = SECONDS) {
  const shares = weights && weights.length === count ? weights : Array(count).fill(1);
  const unknown = median(Object.values(seconds));
  const loads = Array(count).fill(0);
  const shards = Array.from({ length: count }, () => []);
  const weighted = files
    .map((file) => ({ file, seconds: seconds[file] ?? unknown }))
    .sort((a, b) => b.seconds - a.seconds || (a.file < b.file ? -1 : 1));
  for (const item of weighted) {
    let best = 0;
    for (let shard = 1; shard < count; shard += 1) {
      if (loads[shard] / shares[shard] < loads[best] / shares[best]) best = shard;
    }
    loads[best] += item.seconds;
    shards[best].push(item.file);
  }
  return shards[index - 1];
}

class BalancedSequencer extends Sequencer {
  shard(tests, { shardIndex, shardCount }) {
    const key = (test) => relative(test.context.config.rootDir, test.path).split(sep).join('/');
    const weights = (process.env.STT_TEST_SHARD_WEIGHTS ?? '').split(',').filter(Boolean).map(Number);
    const chosen = new Set(balancedShard(tests.map(key), shardIndex, shardCount, weights));
    return tests.filter((test) => chosen.has(key(test)));
  }
}

module.exports = BalancedSequencer;
module.exports.balancedShard = balancedShard;
