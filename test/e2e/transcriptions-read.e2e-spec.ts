import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DELETED_CURSOR_RETENTION_DAYS } from '../../src/transcriptions/transcription-list-cursor';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { insertTranscription, readEventStream } from '../support/transcriptions';

const problem = (slug: string) => `https://errors.transcription.example/problems/${slug}`;

/** List, detail, status, export errors and tenancy, on rows written directly (no engine needed). */
describe('Reading transcriptions', () => {
  let t: TestApp;
  let mine: { apiKey: string; workspaceId: string };
  let theirs: { apiKey: string; workspaceId: string };
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    mine = await t.createWorkspace({ name: 'Reader' });
    theirs = await t.createWorkspace({ name: 'Other reader' });
    const base = Date.now() - 60_000;
    // 25 rows, two sharing one createdOn to exercise the id tie-break.
    for (let i = 0; i < 25; i++) {
      const row = await insertTranscription(t, mine.workspaceId, {
        createdOn: new Date(base + (i === 24 ? 23 : i) * 1000),
        originalFileName: i % 5 === 0 ? `board-meeting-${i}.mp3` : `call-${i}.wav`,
        model: i % 3 === 0 ? 'premium' : 'standard',
        status: i % 4 === 0 ? 'failed' : 'completed',
        resultText: i === 7 ? 'the quarterly Zebra report' : 'nothing special',
        errorMessage: i % 4 === 0 ? 'NO_SPOKEN_AUDIO: no speech was found' : null,
      });
      ids.push(row.id);
    }
    await insertTranscription(t, theirs.workspaceId, { originalFileName: 'board-meeting-secret.mp3' });
  });
  afterAll(() => t.close());

  const list = (query: string, key = mine.apiKey) =>
    t.http().get(`/v1/transcriptions${query}`).set(bearer(key));

  it('pages newest first with a cursor until hasMore is false, each row once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await list(`?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'listTranscriptions');
      seen.push(...response.body.data.map((item: { id: string }) => item.id));
      cursor = response.body.cursor;
      expect(response.body.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(25);
    expect(new Set(seen)).toEqual(new Set(ids));
    const createdOn = await Promise.all(
      seen.map(
        async (id) => (await list(`?limit=100`)).body.data.find((r: { id: string }) => r.id === id).createdOn,
      ),
    );
    expect([...createdOn].sort().reverse()).toEqual(createdOn);
  });

  it('defaults to 20 items and uses the summary form only', async () => {
    const response = await list('');
    expect(response.body.data).toHaveLength(20);
    for (const item of response.body.data) {
      expect(item).not.toHaveProperty('resultJson');
      expect(item).not.toHaveProperty('directoryId');
    }
  });

  it.each([
    '?limit=0',
    '?limit=101',
    '?limit=ten',
    '?status=done',
    '?model=gold',
    `?cursor=${'x'.repeat(5)}`,
    `?cursor=${randomUUID()}`,
  ])('422 validation for %s', async (query) => {
    const response = await list(query);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe(problem('validation'));
    expectMatchesSpec(response, 'listTranscriptions');
  });

  it('filters by status and model', async () => {
    const failed = await list('?status=failed&limit=100');
    expect(failed.body.data.length).toBe(7);
    expect(failed.body.data.every((item: { status: string }) => item.status === 'failed')).toBe(true);
    const premium = await list('?model=premium&limit=100');
    expect(premium.body.data.length).toBe(9);
    const both = await list('?model=premium&status=failed&limit=100');
    expect(both.body.data.length).toBe(3);
  });

  it('searches file names and transcript text, case-insensitively, within the workspace only', async () => {
    const byName = await list('?search=BOARD-meeting&limit=100');
    expect(
      byName.body.data.map((item: { originalFileName: string }) => item.originalFileName).sort(),
    ).toEqual([
      'board-meeting-0.mp3',
      'board-meeting-10.mp3',
      'board-meeting-15.mp3',
      'board-meeting-20.mp3',
      'board-meeting-5.mp3',
    ]);
    const byText = await list('?search=zebra');
    expect(byText.body.data).toHaveLength(1);
    expect(byText.body.data[0].resultText).toContain('Zebra');
    const wildcard = await list('?search=%25');
    expect(wildcard.body.data).toHaveLength(0);
  });

  it('status is lightweight polling', async () => {
    const response = await t.http().get(`/v1/transcriptions/${ids[3]}/status`).set(bearer(mine.apiKey));
    expect(response.body).toEqual({ data: { id: ids[3], status: 'completed', progress: 100 } });
    expectMatchesSpec(response, 'getTranscriptionStatus');
  });

  it('export: 422 invalid-format for a missing or unknown format, 400 not-ready unless completed', async () => {
    for (const query of ['', '?format=pdf']) {
      const response = await t
        .http()
        .get(`/v1/transcriptions/${ids[1]}/export${query}`)
        .set(bearer(mine.apiKey));
      expect(response.status).toBe(422);
      expect(response.body.type).toBe(problem('invalid-format'));
      expectMatchesSpec(response, 'exportTranscription');
    }
    for (const status of ['queued', 'processing', 'failed'] as const) {
      const row = await insertTranscription(t, mine.workspaceId, {
        status,
        resultText: null,
        resultJson: null,
      });
      const response = await t
        .http()
        .get(`/v1/transcriptions/${row.id}/export?format=txt`)
        .set(bearer(mine.apiKey));
      expect(response.status).toBe(400);
      expect(response.body.type).toBe(problem('not-ready'));
      expectMatchesSpec(response, 'exportTranscription');
    }
  });

  it('export of a two-speaker transcript labels speakers in txt and VTT', async () => {
    const txt = await t.http().get(`/v1/transcriptions/${ids[2]}/export?format=txt`).set(bearer(mine.apiKey));
    expect(txt.text).toContain('Speaker 1: Hello there.');
    expect(txt.text).toContain('Speaker 2: General Kenobi!');
    const vtt = await t
      .http()
      .get(`/v1/transcriptions/${ids[2]}/export?format=vtt`)
      .set(bearer(mine.apiKey))
      .buffer(true);
    expect(vtt.text).toContain('<v Speaker 2>General Kenobi!');
  });

  it('events of a finished job: the terminal frame (id 102) with a retry hint, or 204 once the client saw it', async () => {
    for (const [id, status] of [
      [ids[1], 'completed'],
      [ids[0], 'failed'],
    ]) {
      const reconnects: Array<Record<string, string>> = [
        {},
        { 'Last-Event-ID': '57' },
        { 'Last-Event-ID': '0' },
      ];
      for (const headers of reconnects) {
        const response = await readEventStream(t, mine.apiKey, id, headers);
        expect(response.status).toBe(200);
        expectMatchesSpec({ ...response, body: undefined }, 'streamTranscriptionEvents');
        // Rows inserted by the test keep progress 100 whatever their status.
        expect(response.body).toBe(`retry: 3000\n\nid: 102\ndata: {"status":"${status}","progress":100}\n\n`);
      }
      // What a reconnecting EventSource sends after it saw the terminal frame: 204, "stop reconnecting".
      const seen = await readEventStream(t, mine.apiKey, id, { 'Last-Event-ID': '102' });
      expect(seen.status).toBe(204);
      expect(seen.body).toBe('');
      expectMatchesSpec({ ...seen, body: undefined }, 'streamTranscriptionEvents');
    }
    // Still 404 before anything else for another workspace's job, whatever Last-Event-ID says.
    const foreign = await readEventStream(t, theirs.apiKey, ids[1], { 'Last-Event-ID': '102' });
    expect(foreign.status).toBe(404);
  });

  it("another workspace's transcription is 404 on every route", async () => {
    const foreign = ids[0];
    for (const [path, operationId] of [
      [`/v1/transcriptions/${foreign}`, 'getTranscription'],
      [`/v1/transcriptions/${foreign}/status`, 'getTranscriptionStatus'],
      [`/v1/transcriptions/${foreign}/events`, 'streamTranscriptionEvents'],
      [`/v1/transcriptions/${foreign}/export?format=txt`, 'exportTranscription'],
    ]) {
      const response = await t.http().get(path).set(bearer(theirs.apiKey));
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expectMatchesSpec(response, operationId);
    }
    const deleted = await t.http().delete(`/v1/transcriptions/${foreign}`).set(bearer(theirs.apiKey));
    expect(deleted.status).toBe(404);
    const stillThere = await t.http().get(`/v1/transcriptions/${foreign}`).set(bearer(mine.apiKey));
    expect(stillThere.status).toBe(200);
    const theirList = await list('?limit=100', theirs.apiKey);
    expect(theirList.body.data).toHaveLength(1);
  });

  describe('cursors survive deletion', () => {
    type Page = { ids: string[]; cursor: string | null; hasMore: boolean };
    let key: string;
    let rows: string[];

    const page = async (query: string): Promise<Page> => {
      const response = await list(query, key);
      expect(response.status).toBe(200);
      expectMatchesSpec(response, 'listTranscriptions');
      return {
        ids: response.body.data.map((item: { id: string }) => item.id),
        cursor: response.body.cursor,
        hasMore: response.body.hasMore,
      };
    };
    const remove = async (id: string, apiKey = key) => {
      const response = await t.http().delete(`/v1/transcriptions/${id}`).set(bearer(apiKey));
      expect(response.status).toBe(204);
      expectMatchesSpec(response, 'deleteTranscription');
    };

    beforeEach(async () => {
      const workspace = await t.createWorkspace({ name: 'List and delete' });
      key = workspace.apiKey;
      const base = Date.now() - 60_000;
      // Seven rows, newest first in `rows`; rows 2 and 3 share one createdOn (the id breaks the tie).
      const inserted = [];
      for (const second of [0, 1, 2, 3, 3, 4, 5]) {
        inserted.push(
          await insertTranscription(t, workspace.workspaceId, { createdOn: new Date(base + second * 1000) }),
        );
      }
      rows = inserted
        .sort((a, b) => b.createdOn.getTime() - a.createdOn.getTime() || (a.id < b.id ? 1 : -1))
        .map((row) => row.id);
    });

    it('the next page after the deleted cursor item starts right after it: no gap, no duplicate', async () => {
      const first = await page('?limit=2');
      expect(first).toEqual({ ids: rows.slice(0, 2), cursor: rows[1], hasMore: true });
      await remove(first.cursor as string);
      const second = await page(`?limit=2&cursor=${first.cursor}`);
      expect(second).toEqual({ ids: rows.slice(2, 4), cursor: rows[3], hasMore: true });
      // The cursor sits on the createdOn tie: delete it too, the tie-break still places it.
      await remove(second.cursor as string);
      const third = await page(`?limit=3&cursor=${second.cursor}`);
      expect(third).toEqual({ ids: rows.slice(4, 7), cursor: null, hasMore: false });
    });

    it('a "list and delete everything" loop ends with an empty list', async () => {
      let cursor: string | null = null;
      let pages = 0;
      const deleted: string[] = [];
      do {
        const current = await page(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        for (const id of current.ids) await remove(id);
        deleted.push(...current.ids);
        cursor = current.cursor;
        pages++;
      } while (cursor && pages < 10);
      expect(deleted).toEqual(rows);
      expect(await page('?limit=100')).toEqual({ ids: [], cursor: null, hasMore: false });
    });

    it('a cursor deleted longer ago than the retention is 422, its tombstone swept by a later deletion', async () => {
      const first = await page('?limit=2');
      await remove(first.cursor as string);
      // Age the tombstone past DELETED_CURSOR_RETENTION_DAYS; the next deletion sweeps it.
      await t.app
        .get(DataSource)
        .query(
          `UPDATE transcription_tombstones SET deleted_on = now() - make_interval(days => $1) WHERE id = $2`,
          [DELETED_CURSOR_RETENTION_DAYS, first.cursor],
        );
      expect((await list(`?cursor=${first.cursor}`, key)).status).toBe(200);
      await remove(rows[6]);
      const response = await list(`?cursor=${first.cursor}`, key);
      expect(response.status).toBe(422);
      expectMatchesSpec(response, 'listTranscriptions');
    });

    it("another workspace's deleted transcription is still not a cursor here (422)", async () => {
      const other = await t.createWorkspace({ name: 'Other list and delete' });
      const foreign = await insertTranscription(t, other.workspaceId);
      await remove(foreign.id, other.apiKey);
      const response = await list(`?cursor=${foreign.id}`, key);
      expect(response.status).toBe(422);
      expect(response.body.type).toBe(problem('validation'));
      expectMatchesSpec(response, 'listTranscriptions');
    });
  });

  it('unknown and malformed ids are 404', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const response = await t.http().get(`/v1/transcriptions/${id}`).set(bearer(mine.apiKey));
      expect(response.status).toBe(404);
      expect(response.body.type).toBe(problem('not-found'));
    }
  });
});
