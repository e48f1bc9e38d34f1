/**
 * `node dist/main.js` on a Node older than package.json's engines says so at start-up (issue 35: the quick start
 * runs on .tools' Node 24 while the user's shell stays on Debian's Node 20). The process is started without
 * configuration, so it stops right after: only its first lines matter here.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
const OLDER_NODE = '/usr/bin/node';

function majorOf(node: string): number {
  try {
    return Number(
      execFileSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim(),
    );
  } catch {
    return 0;
  }
}

function start(node: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      node,
      [MAIN],
      { env: { PATH: process.env.PATH, ENV_FILE: 'none' }, timeout: 60_000 },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
}

const olderNodeHere = existsSync(OLDER_NODE) && majorOf(OLDER_NODE) > 0 && majorOf(OLDER_NODE) < 24;

describe('start-up on an unsupported Node', () => {
  (olderNodeHere ? it : it.skip)(
    `warns on the machine's older Node (${OLDER_NODE}; skipped when there is none older than 24)`,
    async () => {
      expect(await start(OLDER_NODE)).toMatch(
        /Node v\d+\.\d+\.\d+ is older than this service supports \(package\.json engines: node >=24\)/,
      );
    },
    60_000,
  );

  it('says nothing of the kind on the Node it supports', async () => {
    const output = await start(process.execPath);
    expect(output).toContain('Invalid configuration');
    expect(output).not.toContain('older than this service supports');
  }, 60_000);
});
