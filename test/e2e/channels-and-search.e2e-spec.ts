import { strFromU8, unzipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TranscriptWord } from '../../src/engine/engine.types';
import { expectMatchesSpec } from '../support/openapi-contract';
import { testAudio } from '../support/shared-paths';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import {
  asBuffer,
  generatedAudio,
  insertTranscription,
  upload,
  waitForTerminal,
} from '../support/transcriptions';

const GO_FORWARD = testAudio('pocketsphinx/goforward.wav'); // "go forward ten meters", 2.8 s
const DARK_SUIT = testAudio('coqui-stt/LDC93S1.wav'); // "she had your dark suit in greasy wash water all year", 2.9 s
/** Where the second clip starts on its channel: the two voices overlap from 1.5 s to 2.8 s. */
const SECOND_CHANNEL_DELAY_SECONDS = 1.5;
const STEREO_SECONDS = 4.5;

/**
 * Multichannel uploads and transcript search through HTTP (every answer validated against openapi.yaml):
 * a stereo file built here from two different real clips, one per channel, overlapping in time.
 */
describe('Multichannel audio and transcript search', () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let apiKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    server = createServer((request, response) => {
      if (request.url === '/goforward.wav') {
        response.writeHead(200, { 'Content-Type': 'audio/wav' }).end(readFileSync(GO_FORWARD));
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ apiKey, workspaceId } = await t.createWorkspace({
      name: 'Channels',
      balanceEur: 5,
      freeTranscriptions: 0,
    }));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  const get = async (path: string, operationId: string, key = apiKey) => {
    const response = await t.http().get(path).set(bearer(key));
    expectMatchesSpec(response, operationId);
    return response;
  };
  const exportOf = async (id: string, format: string) => {
    const response = await t
      .http()
      .get(`/v1/transcriptions/${id}/export?format=${format}`)
      .set(bearer(apiKey))
      .buffer(true)
      .parse(asBuffer);
    expect(response.status).toBe(200);
    return response.body as Buffer;
  };

  describe('multichannel', () => {
    it('recognises each channel on its own: words under their channel, merged in time order, in every export', async () => {
      const mono = 'aformat=sample_fmts=s16:sample_rates=16000:channel_layouts=mono';
      const stereo = generatedAudio('two-callers.wav', [
        ...['-i', GO_FORWARD, '-i', DARK_SUIT],
        '-filter_complex',
        `[0]${mono},apad[left];[1]${mono},adelay=${SECOND_CHANNEL_DELAY_SECONDS * 1000},apad[right];` +
          '[left][right]join=inputs=2:channel_layout=stereo[out]',
        ...['-map', '[out]', '-t', String(STEREO_SECONDS)],
      ]);
      const created = await upload(t, apiKey, stereo, { multichannel: 'true' });
      expect(created.status).toBe(202);
      // Per channel-minute: 5 started seconds × 50 micro-EUR (standard) × 2 channels.
      expect(created.body.data.estimatedCost).toBeCloseTo(0.0005, 10);
      const id = created.body.data.id as string;

      const done = await waitForTerminal(t, apiKey, id, 90_000);
      expect(done.status).toBe('completed');
      const detail = done.body.data as unknown as { resultJson: { words: TranscriptWord[] } };
      expect(detail).toMatchObject({ multichannel: true, channels: 2, speakerCount: 2, cost: 0.0005 });
      const words = detail.resultJson.words;
      const starts = words.map((word) => word.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      const said = (channel: string) =>
        words
          .filter((word) => word.speaker === channel)
          .map((word) =>
            word.word
              .trim()
              .toLowerCase()
              .replace(/[^a-z]/g, ''),
          );
      expect(new Set(words.map((word) => word.speaker))).toEqual(new Set(['CHANNEL_1', 'CHANNEL_2']));
      // Each clip's words on its own channel only (PocketSphinx hears "she had …" on the second one).
      expect(said('CHANNEL_1')).toEqual(expect.arrayContaining(['forward']));
      expect(said('CHANNEL_2')).toEqual(expect.arrayContaining(['she', 'had']));
      expect(said('CHANNEL_1')).not.toEqual(expect.arrayContaining(['she']));
      expect(said('CHANNEL_2')).not.toEqual(expect.arrayContaining(['forward']));
      const secondChannelStart = Math.min(
        ...words.filter((word) => word.speaker === 'CHANNEL_2').map((word) => word.start),
      );
      expect(secondChannelStart).toBeGreaterThanOrEqual(SECOND_CHANNEL_DELAY_SECONDS - 0.3);
      // The voices overlap: a CHANNEL_2 word starts before the last CHANNEL_1 word ends.
      const firstChannelEnd = Math.max(
        ...words.filter((word) => word.speaker === 'CHANNEL_1').map((word) => word.end),
      );
      expect(secondChannelStart).toBeLessThan(firstChannelEnd);

      for (const format of ['txt', 'srt', 'vtt']) {
        const text = (await exportOf(id, format)).toString('utf8');
        expect(text).toContain('Channel 1');
        expect(text).toContain('Channel 2');
        expect(text).not.toMatch(/Speaker \d/u);
      }
      const json = JSON.parse((await exportOf(id, 'json')).toString('utf8')) as {
        segments: Array<{ speaker: string | null }>;
      };
      expect(new Set(json.segments.map((segment) => segment.speaker))).toEqual(
        new Set(['Channel 1', 'Channel 2']),
      );
      const docx = strFromU8(unzipSync(new Uint8Array(await exportOf(id, 'docx')))['word/document.xml']);
      expect(docx).toContain('Channel 1');
      expect(docx).toContain('Channel 2');

      const found = await get(`/v1/transcriptions/${id}/search?q=FORWARD`, 'searchTranscript');
      expect(found.status).toBe(200);
      expect(found.body.data.occurrences).toEqual([expect.objectContaining({ speaker: 'CHANNEL_1' })]);
    }, 120_000);

    it('takes the option in a JSON audio_url body too; a mono file is one channel, CHANNEL_1, billed once', async () => {
      const response = await t
        .http()
        .post('/v1/transcriptions')
        .set(bearer(apiKey))
        .send({ audio_url: `${base}/goforward.wav`, multichannel: true });
      expectMatchesSpec(response, 'createTranscription');
      expect(response.status).toBe(202);
      // 3 started seconds × 50 micro-EUR × 1 channel.
      expect(response.body.data.estimatedCost).toBeCloseTo(0.00015, 10);
      const done = await waitForTerminal(t, apiKey, response.body.data.id as string, 90_000);
      expect(done.status).toBe('completed');
      const detail = done.body.data as unknown as { resultJson: { words: TranscriptWord[] } };
      expect(detail).toMatchObject({ multichannel: true, channels: 1, speakerCount: 1 });
      expect(new Set(detail.resultJson.words.map((word) => word.speaker))).toEqual(new Set(['CHANNEL_1']));
    }, 120_000);

    it('refuses more than 8 channels, and a value that is not true/false, as 422 validation on multichannel', async () => {
      const nine = generatedAudio('nine-channels.wav', [
        ...['-f', 'lavfi', '-i', `aevalsrc=${Array(9).fill('0.1*sin(440*2*PI*t)').join('|')}:d=1:s=16000`],
      ]);
      const tooMany = await upload(t, apiKey, nine, { multichannel: 'true' });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.errors.fieldErrors.multichannel[0]).toMatch(/at most 8 channels; the audio has 9/);
      // The same file without the option is a normal (mixed-down) upload.
      const mixed = await upload(t, apiKey, nine);
      expect(mixed.status).toBe(202);
      await t
        .http()
        .delete(`/v1/transcriptions/${mixed.body.data.id as string}`)
        .set(bearer(apiKey));

      const notBoolean = await upload(t, apiKey, GO_FORWARD, { multichannel: 'yes' });
      expect(notBoolean.status).toBe(422);
      expect(notBoolean.body.errors.fieldErrors.multichannel).toEqual(['multichannel must be true or false']);
      const json = await t
        .http()
        .post('/v1/transcriptions')
        .set(bearer(apiKey))
        .send({ audio_url: `${base}/goforward.wav`, multichannel: 2 });
      expectMatchesSpec(json, 'createTranscription');
      expect(json.status).toBe(422);
      expect(Object.keys(json.body.errors.fieldErrors)).toEqual(['multichannel']);
    });
  });

  describe('GET /v1/transcriptions/{id}/search', () => {
    let completedId: string;
    beforeAll(async () => {
      completedId = (await insertTranscription(t, workspaceId)).id;
    });
    const search = (id: string, query: string) =>
      get(`/v1/transcriptions/${id}/search?${query}`, 'searchTranscript');

    it('returns each occurrence with its times and speaker, whatever the case and punctuation', async () => {
      const phrase = await search(completedId, `q=${encodeURIComponent('general KENOBI')}`);
      expect(phrase.status).toBe(200);
      expect(phrase.body.data).toEqual({
        q: 'general KENOBI',
        count: 1,
        occurrences: [
          {
            wordIndex: 2,
            wordCount: 2,
            start: 1.5,
            end: 2.6,
            speaker: 'SPEAKER_01',
            text: 'General Kenobi!',
          },
        ],
      });
      const acrossSentences = await search(completedId, `q=${encodeURIComponent('there, general')}`);
      expect(acrossSentences.body.data.occurrences).toEqual([
        expect.objectContaining({ wordIndex: 1, start: 0.5, end: 2.0, speaker: 'SPEAKER_00' }),
      ]);
      const none = await search(completedId, 'q=kenob');
      expect(none.body.data).toEqual({ q: 'kenob', count: 0, occurrences: [] });
    });

    it('refuses a missing, empty, too long or wordless q as 422 validation on q', async () => {
      for (const query of ['', 'q=', `q=${'a'.repeat(201)}`, 'q=%3F%21', 'q=a&q=b']) {
        const response = await search(completedId, query);
        expect(response.status).toBe(422);
        expect(Object.keys(response.body.errors.fieldErrors)).toEqual(['q']);
      }
    });

    it('is 404 for an unknown id or another workspace’s, 400 before completion, 410 after retention', async () => {
      const other = await t.createWorkspace({ name: 'Other' });
      const theirs = await insertTranscription(t, other.workspaceId);
      expect((await search(theirs.id, 'q=hello')).status).toBe(404);
      expect((await search('00000000-0000-4000-8000-000000000000', 'q=hello')).status).toBe(404);
      const queued = await insertTranscription(t, workspaceId, {
        status: 'queued',
        resultText: null,
        resultJson: null,
        completedAt: null,
      });
      const notReady = await search(queued.id, 'q=hello');
      expect(notReady.status).toBe(400);
      expect(notReady.body.type).toMatch(/\/not-ready$/);
      const purged = await insertTranscription(t, workspaceId, {
        resultText: null,
        resultJson: null,
        transcriptDeletedAt: new Date(),
      });
      expect((await search(purged.id, 'q=hello')).status).toBe(410);
    });
  });

  describe('the list’s search', () => {
    let english: string;
    let unknownLanguage: string;
    let german: string;
    let listKey: string;
    beforeAll(async () => {
      const fresh = await t.createWorkspace({ name: 'List search' });
      listKey = fresh.apiKey;
      const row = async (originalFileName: string, detectedLanguage: string | null, resultText: string) =>
        (await insertTranscription(t, fresh.workspaceId, { originalFileName, detectedLanguage, resultText }))
          .id;
      english = await row('call-a.mp3', 'en', 'She runs the weekly meetings.');
      unknownLanguage = await row('call-b.mp3', null, 'He runs the daily meetings.');
      german = await row('anruf.mp3', 'de', 'Die Häuser sind alt.');
    });
    const listIds = async (search: string) => {
      const response = await get(
        `/v1/transcriptions?search=${encodeURIComponent(search)}`,
        'listTranscriptions',
        listKey,
      );
      expect(response.status).toBe(200);
      return (response.body.data as Array<{ id: string }>).map((item) => item.id).sort();
    };

    it('still finds substrings of the text and the file name', async () => {
      expect(await listIds('eetin')).toEqual([english, unknownLanguage].sort());
      expect(await listIds('ANRUF.')).toEqual([german]);
      expect(await listIds('ALL-')).toEqual([english, unknownLanguage].sort());
    });

    it('refuses an empty search= as 422 validation (the contract says minLength 1), like any other invalid query', async () => {
      // Before: 200 with every transcription, unfiltered (issue 35 item 11).
      const response = await get('/v1/transcriptions?search=', 'listTranscriptions', listKey);
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body)).toContain('search');
    });

    it('also finds other forms of the words in the transcript’s language', async () => {
      expect(await listIds('running')).toEqual([english]);
      expect(await listIds('weekly meeting')).toEqual([english]);
      expect(await listIds('Haus')).toEqual([german]);
      expect(await listIds('walking')).toEqual([]);
    });
  });
});
