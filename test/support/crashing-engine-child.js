/**
 * Test-only engine child (never in src/ or dist/): the real dist/engine/runner/engine-child.js, killed with a
 * real SIGSEGV when it reports its first progress, i.e. in the middle of a job, as a segfault in a native
 * library would kill it — for a job whose audio file name contains `crash` (other jobs run normally, so one
 * runner can show a crashed job followed by a good one). engine-runner.integration-spec.ts runs it to prove
 * crash isolation without any switch in the production settings. Plain JavaScript: the runner forks it with
 * node as it is.
 */
'use strict';
const path = require('node:path');

let crashThisJob = false;
process.prependOnceListener('message', (message) => {
  crashThisJob = path.basename(String(message?.request?.audioPath ?? '')).includes('crash');
});

const send = process.send.bind(process);
process.send = (message, ...rest) => {
  if (crashThisJob && message && message.type === 'progress') {
    process.kill(process.pid, 'SIGSEGV');
    return false;
  }
  return send(message, ...rest);
};

require(path.resolve(__dirname, '..', '..', 'dist', 'engine', 'runner', 'engine-child.js'));
