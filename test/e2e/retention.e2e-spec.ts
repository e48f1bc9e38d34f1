import { existsSync } from 'node:fs';
import { OPERATOR } from '../../src/audit/audit-log.service';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { FileStorage } from '../../src/storage/file-storage';
import { Transcription } from '../../src/transcriptions/transcription.entity';
import { RetentionPurgeService } from '../../src/transcriptions/retention/retention-purge.service';
import { RetentionSettingsService } from '../../src/account/retention-settings.service';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { insertTranscription, upload, waitForTerminal } from '../support/transcriptions';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav');
const DAY_MS = 24 * 60 * 60 * 1000;
const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

/**
 * Per-workspace retention. The purge service is run directly (the worker runs it every
 * few minutes); what it did is checked through HTTP (detail, export, usage) and in storage and the ledger.
 */
describe('Retention of audio and transcripts', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let storage: FileStorage;
  let purge: RetentionPurgeService;
  let settings: RetentionSettingsService;

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
    storage = t.app.get(FileStorage);
    purge = t.app.get(RetentionPurgeService);
    settings = t.app.get(RetentionSettingsService);
  });
  afterAll(() => t.close());

  const rowOf = (id: string) => dataSource.getRepository(Transcription).findOneByOrFail({ id });
  const stored = (key: string) => storage.withLocalFile(key, async (path) => existsSync(path));
  const ledgerOf = (workspaceId: string) =>
    dataSource.query(`SELECT * FROM balance_ledger WHERE workspace_id = $1 ORDER BY created_on, id`, [
      workspaceId,
    ]);

  async function detailOf(apiKey: string, id: string) {
    const detail = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(apiKey));
    expect(detail.status).toBe(200);
    expectMatchesSpec(detail, 'getTranscription');
    return detail.body.data as Record<string, unknown>;
  }

  async function exportOf(apiKey: string, id: string) {
    const response = await t.http().get(`/v1/transcriptions/${id}/export?format=txt`).set(bearer(apiKey));
    expectMatchesSpec(response, 'exportTranscription');
    return response;
  }

  async function insertWithAudio(workspaceId: string, overrides: Partial<Transcription>) {
    const storageKey = `retention-test/${Math.random().toString(36).slice(2)}.wav`;
    await storage.write(storageKey, Readable.from([Buffer.from('RIFF audio bytes')]));
    return insertTranscription(t, workspaceId, { storageKey, ...overrides });
  }

  it('deletes expired audio, then the text, keeps the job, its usage and the ledger; a second run does nothing', async () => {
    const { workspaceId, apiKey } = await t.createWorkspace({
      name: 'Retention',
      balanceEur: 5,
      freeTranscriptions: 0,
    });
    const created = await upload(t, apiKey, GO_FORWARD);
    expect(created.status).toBe(202);
    const id = created.body.data.id as string;
    expect((await waitForTerminal(t, apiKey, id)).status).toBe('completed');
    const { storageKey } = await rowOf(id);
    expect(storageKey).not.toBeNull();
    expect(await stored(storageKey!)).toBe(true);
    const before = await detailOf(apiKey, id);
    expect(before.audioDeletedAt).toBeNull();
    expect(before.transcriptDeletedAt).toBeNull();
    const ledgerBefore = await ledgerOf(workspaceId);
    expect(ledgerBefore.length).toBeGreaterThan(0);
    const usageBefore = await t.http().get('/v1/account/usage').set(bearer(apiKey));
    expectMatchesSpec(usageBefore, 'getUsage');

    // Audio retention only: 0 days, so the job's audio is expired as soon as it completed.
    await settings.update(workspaceId, { audioDays: 0 }, OPERATOR);
    expect(await purge.purgeExpired()).toMatchObject({ audioDeleted: 1, transcriptsDeleted: 0 });
    expect(await stored(storageKey!)).toBe(false);
    const afterAudio = await detailOf(apiKey, id);
    expect(typeof afterAudio.audioDeletedAt).toBe('string');
    expect(afterAudio.transcriptDeletedAt).toBeNull();
    expect(afterAudio.resultText).toBe(before.resultText);
    expect(afterAudio.resultJson).toEqual(before.resultJson);
    const kept = await exportOf(apiKey, id);
    expect(kept.status).toBe(200);
    expect(kept.text).toContain(String(before.resultText).split(' ')[0]);
    expect(await purge.purgeExpired()).toMatchObject({ audioDeleted: 0, transcriptsDeleted: 0 });

    // Names given to the speakers and the words a live session kept are text of the transcript too.
    await dataSource.query(
      `UPDATE transcriptions SET speaker_names = '{"SPEAKER_00": "Ada Lovelace"}', live_words = '[{"word": "forward", "start": 0, "end": 1}]' WHERE id = $1`,
      [id],
    );
    expect((await detailOf(apiKey, id)).speakerNames).toEqual({ SPEAKER_00: 'Ada Lovelace' });

    // Transcript retention as well: the text goes, the export is 410 gone, the job and its figures stay.
    await settings.update(workspaceId, { transcriptDays: 0 }, OPERATOR);
    expect(await purge.purgeExpired()).toMatchObject({ audioDeleted: 0, transcriptsDeleted: 1 });
    const afterText = await detailOf(apiKey, id);
    expect(afterText.resultText).toBeNull();
    expect(afterText.resultJson).toBeNull();
    expect(afterText.speakerNames).toEqual({});
    const purgedRow = await rowOf(id);
    expect(purgedRow.speakerNames).toEqual({});
    expect(purgedRow.liveWords).toBeNull();
    expect(purgedRow.prompt).toBeNull();
    expect(typeof afterText.transcriptDeletedAt).toBe('string');
    expect(afterText.audioDeletedAt).toBe(afterAudio.audioDeletedAt);
    expect(afterText.cost).toBe(before.cost);
    expect(afterText.duration).toBe(before.duration);
    expect(afterText.wordCount).toBe(before.wordCount);
    const gone = await exportOf(apiKey, id);
    expect(gone.status).toBe(410);
    expect(gone.body.type).toBe(problem('gone'));

    expect(await ledgerOf(workspaceId)).toEqual(ledgerBefore);
    const usageAfter = await t.http().get('/v1/account/usage').set(bearer(apiKey));
    expectMatchesSpec(usageAfter, 'getUsage');
    expect(usageAfter.body).toEqual(usageBefore.body);
    expect(await purge.purgeExpired()).toMatchObject({ audioDeleted: 0, transcriptsDeleted: 0 });
  });

  it('counts audio days from completion or failure and text days from completion; open jobs are never purged', async () => {
    const { workspaceId, apiKey } = await t.createWorkspace({ name: 'Retention days' });
    await settings.update(workspaceId, { audioDays: 30, transcriptDays: 30 }, OPERATOR);
    const now = new Date();
    const recent = await insertWithAudio(workspaceId, { completedAt: new Date(now.getTime() - 29 * DAY_MS) });
    const old = await insertWithAudio(workspaceId, { completedAt: new Date(now.getTime() - 31 * DAY_MS) });
    const failed = await insertWithAudio(workspaceId, {
      status: 'failed',
      completedAt: null,
      resultText: null,
      resultJson: null,
      errorMessage: 'NO_SPOKEN_AUDIO',
      failedAt: new Date(now.getTime() - 31 * DAY_MS),
    });
    const processing = await insertWithAudio(workspaceId, {
      // An open job is never purged, even with a terminal timestamp that says it expired long ago.
      status: 'processing',
      completedAt: new Date(now.getTime() - 60 * DAY_MS),
      failedAt: new Date(now.getTime() - 60 * DAY_MS),
      resultText: null,
      resultJson: null,
      createdOn: new Date(now.getTime() - 60 * DAY_MS),
    });

    expect(await purge.purgeExpired(now)).toMatchObject({ audioDeleted: 2, transcriptsDeleted: 1 });
    for (const expired of [old, failed]) {
      expect(await stored(expired.storageKey!)).toBe(false);
      expect(typeof (await detailOf(apiKey, expired.id)).audioDeletedAt).toBe('string');
    }
    expect((await exportOf(apiKey, old.id)).status).toBe(410);
    for (const kept of [recent, processing]) {
      expect(await stored(kept.storageKey!)).toBe(true);
      expect((await detailOf(apiKey, kept.id)).audioDeletedAt).toBeNull();
    }
    expect((await exportOf(apiKey, recent.id)).status).toBe(200);
    expect(await purge.purgeExpired(now)).toMatchObject({ audioDeleted: 0, transcriptsDeleted: 0 });
  });

  it('purges nothing without retention (the default) and after --clear', async () => {
    const { workspaceId, apiKey } = await t.createWorkspace({ name: 'No retention' });
    const ancient = await insertWithAudio(workspaceId, { completedAt: new Date(Date.now() - 3650 * DAY_MS) });
    expect(await purge.purgeExpired()).toMatchObject({ audioDeleted: 0, transcriptsDeleted: 0 });

    await settings.update(workspaceId, { audioDays: 1, transcriptDays: 1 }, OPERATOR);
    await settings.update(workspaceId, { audioDays: null, transcriptDays: null }, OPERATOR);
    expect(await purge.purgeExpired()).toMatchObject({ audioDeleted: 0, transcriptsDeleted: 0 });
    expect(await stored(ancient.storageKey!)).toBe(true);
    const detail = await detailOf(apiKey, ancient.id);
    expect(detail.audioDeletedAt).toBeNull();
    expect(detail.resultText).toBe('Hello there. General Kenobi!');
    expect((await exportOf(apiKey, ancient.id)).status).toBe(200);
  });
});
