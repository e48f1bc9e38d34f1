/**
 * Test-only engine child (never in src/ or dist/): the real dist/engine/runner/engine-child.js, killed with a
 * real SIGSEGV when it reports its first progress, i.e. in the middle of a job, as a segfault in a native
 * library would kill it. engine-runner.integration-spec.ts runs it to prove crash isolation without any
 * switch in the production settings. Plain JavaScript: the runner forks it with node as it is.
 */
'use strict';
const path = require('node:path');

const send = process.send.bind(process);
process.send = (message, ...rest) => {
  if (message && message.type === 'progress') {
    process.kill(process.pid, 'SIGSEGV');
    return false;
  }
  return send(message, ...rest);
};

require(path.resolve(__dirname, '..', '..', 'dist', 'engine', 'runner', 'engine-child.js'));
