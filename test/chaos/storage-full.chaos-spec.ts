import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspace, uploadClip, useChaosFixture } from '../support/chaos-harness';
import { expectMatchesSpec } from '../support/openapi-contract';

/** 200 KiB: jfk.wav (352 KB) cannot fit, goforward.wav (89 KB) can. */
const TMPFS_SIZE = '200k';

/** Every regular file under `dir` (directories alone are not leftovers). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((entry) =>
    statSync(join(dir, entry)).isFile(),
  );
}

/**
 * Upload storage that runs out of space mid-upload: a real full filesystem (a 200 KiB tmpfs mounted as the
 * storage directory). Where mounting is not permitted, the storage root is a regular file instead, so every
 * write fails (a storage write error, not a full disk).
 */
describe('Chaos: upload storage full', () => {
  const chaos = useChaosFixture('storage-full', { startReceiver: false });
  const scratch = mkdtempSync(join(tmpdir(), 'stt-chaos-storage-'));
  const storageDir = join(scratch, 'storage');
  let mounted = false;

  beforeAll(() => {
    execFileSync('mkdir', ['-p', storageDir]);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', storageDir], {
        stdio: 'pipe',
      });
      mounted = true;
    } catch (error) {
      console.log(
        `tmpfs mount not permitted (${(error as Error).message.split('\n')[0]}): storage root is a file`,
      );
      rmSync(storageDir, { recursive: true, force: true });
      writeFileSync(storageDir, 'not a directory');
    }
  });
  // After the fixture's afterAll: the service processes are stopped before the storage goes away.
  afterAll(() => {
    if (mounted) execFileSync('umount', [storageDir]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('answers a 5xx problem (503 when full) and leaves no record and no file behind', async () => {
    const workspace = createWorkspace('Chaos storage full', 1);
    const api = await chaos.processes.api({ ...chaos.env, STORAGE_DIR: storageDir });
    const upload = (clip: string) => uploadClip(api.url, workspace.apiKey, clip);
    const rowCount = async () => (await chaos.transcriptionsOf(workspace.workspaceId)).length;

    const refused = await upload('whisper.cpp/jfk.wav');
    console.log(
      `storage ${mounted ? `tmpfs ${TMPFS_SIZE}` : 'root is a file'}: upload answered ${refused.status}`,
    );
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expectMatchesSpec(refused, 'createTranscription');
    if (mounted) {
      // A full disk is a server-side condition the client can retry later: 503 with Retry-After.
      expect(refused.status).toBe(503);
      expect(refused.body.type).toMatch(/\/service-unavailable$/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } else {
      expect(refused.status).toBeGreaterThanOrEqual(500);
    }
    expect(await rowCount()).toBe(0);

    if (!mounted) return;
    expect(filesUnder(storageDir)).toEqual([]);
    // The partial file was removed, so a file that fits is accepted: storage works again by itself.
    const accepted = await upload('pocketsphinx/goforward.wav');
    expect(accepted.status).toBe(202);
    expect(filesUnder(storageDir)).toHaveLength(1);
    expect(await rowCount()).toBe(1);
  });
});
