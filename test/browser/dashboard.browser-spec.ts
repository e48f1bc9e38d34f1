import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { verifyWebhook } from '../../clients/typescript/src';
import {
  Dashboard,
  expectNoHorizontalOverflow,
  signInAt as signInDashboard,
  startDashboard,
} from './browser-harness';

const run = promisify(execFile);

// Browser-side names used inside page.evaluate callbacks (this project's tsconfig has no DOM library).
type Player = { currentTime: number; paused: boolean; play: () => Promise<void>; pause: () => void };
declare const DataTransfer: new () => { items: { add: (file: File) => void } };
declare const document: { querySelector: (selector: string) => unknown };
declare const navigator: { clipboard: { readText: () => Promise<string> } };
const CLIP_DIRECTORY = join(__dirname, '..', 'fixtures', 'audio', 'whisper.cpp');
const CLIP = join(CLIP_DIRECTORY, 'jfk.wav');
const SILENCE = join(__dirname, '..', 'fixtures', 'audio', 'kaldi-gstreamer-server', 'silence.wav');

/** HTTP status of a curl call with an API key (the way a user's script would use the key). */
async function curlStatus(baseUrl: string, key: string): Promise<number> {
  const { stdout } = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-H',
    `X-API-KEY: ${key}`,
    `${baseUrl}/v1/account/balance`,
  ]);
  return Number(stdout);
}

describe('Dashboard in Chromium', () => {
  let dashboard: Dashboard;
  let page: Page;
  beforeAll(async () => {
    dashboard = await startDashboard();
    page = await dashboard.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(() => dashboard?.close());

  /** Opens the app at `path` (under /app) and signs in there, as the dashboard's user. */
  const signInAt = (path: string): Promise<void> => signInDashboard(page, dashboard, path);

  it('serves the app at /app: index.html for client routes (revalidated), hashed assets cached, its own CSP', async () => {
    const route = await fetch(`${dashboard.baseUrl}/app/transcriptions/00000000-0000-4000-8000-000000000000`);
    expect(route.status).toBe(200);
    expect(route.headers.get('content-type')).toMatch(/^text\/html/);
    expect(route.headers.get('cache-control')).toBe('no-cache');
    expect(route.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await route.text();
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${dashboard.baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${dashboard.baseUrl}/app/assets/missing.js`)).status).toBe(404);
  });

  it('signs in, uploads a clip and follows it live, seeks by word, exports docx, manages a key, signs out', async () => {
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    await signInAt('/');
    await page.getByRole('heading', { name: 'Transcriptions', level: 1 }).waitFor();

    // Upload a real clip; the live status (EventSource, cookie-authenticated) turns completed
    await page.getByLabel('Audio or video file').setInputFiles(CLIP);
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded jfk.wav.' }).waitFor();
    const row = page.getByRole('listitem').filter({ hasText: 'jfk.wav' });
    await row.getByText('completed', { exact: true }).waitFor({ timeout: 90_000 });

    // Transcript: clicking a word seeks the player to the word's start and plays from there
    await row.getByRole('link', { name: 'jfk.wav' }).click();
    await page.getByRole('heading', { name: 'jfk.wav', level: 1 }).waitFor();
    const detail = await page.evaluate(
      async (id) => {
        const response = await fetch(`/v1/transcriptions/${id}`);
        return (
          (await response.json()) as { data: { resultJson: { words: { word: string; start: number }[] } } }
        ).data;
      },
      page.url().split('/').pop() ?? '',
    );
    const audio = page.locator('audio');
    /** Whether the player was playing, and where, then pauses it. */
    const stopPlayer = () =>
      audio.evaluate((element) => {
        const player = element as unknown as Player;
        const state = { playing: !player.paused, time: player.currentTime };
        player.pause();
        return state;
      });
    const target = detail.resultJson.words[3];
    const words = page.getByRole('button', { name: new RegExp(`^${target.word}, `) });
    await words.first().click();
    const clicked = await stopPlayer();
    expect(clicked.playing).toBe(true);
    expect(clicked.time).toBeGreaterThanOrEqual(target.start - 0.001);
    expect(clicked.time).toBeLessThan(target.start + 0.5);

    // Keyboard: from the focused word, two steps right and Enter seek to the fifth word after the first
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    const entered = await stopPlayer();
    expect(entered.playing).toBe(true);
    expect(entered.time).toBeGreaterThanOrEqual(detail.resultJson.words[5].start - 0.001);
    expect(entered.time).toBeLessThan(detail.resultJson.words[5].start + 0.5);

    // Playing: the highlighted word follows the player
    const playerTime = () => audio.evaluate((element) => (element as unknown as Player).currentTime);
    await audio.evaluate((element) => (element as unknown as Player).play());
    await page.waitForFunction(
      (after) => (document.querySelector('audio') as Player).currentTime > after + 1,
      detail.resultJson.words[5].start,
    );
    await audio.evaluate((element) => (element as unknown as Player).pause());
    const pausedAt = await playerTime();
    const spoken = detail.resultJson.words.filter((word) => word.start <= pausedAt).pop();
    await page
      .locator('[aria-current="true"]')
      .and(page.getByRole('button', { name: `${spoken?.word}, ${spoken?.start.toFixed(2)} seconds` }))
      .waitFor();

    // Export docx: a real download
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download DOCX' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.docx$/);

    // API key: created in the browser, works with curl, revoked → 401
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByLabel('Key name').fill('browser test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByRole('region', { name: 'New API key' }).locator('code').textContent()) ?? '';
    expect(key.length).toBeGreaterThan(20);
    expect(await curlStatus(dashboard.baseUrl, key)).toBe(200);
    page.once('dialog', (dialog) => void dialog.accept());
    const revoke = page.getByRole('button', { name: 'Revoke browser test' });
    await revoke.click();
    await revoke.waitFor({ state: 'detached' });
    expect(await curlStatus(dashboard.baseUrl, key)).toBe(401);

    // Sign out: back to the sign-in form, and a reload does not restore the session
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  });

  it('takes a dropped file with an upload progress bar, then finds it by searching', async () => {
    await signInAt('/');
    await page.getByRole('heading', { name: 'Transcriptions', level: 1 }).waitFor();

    // A real drop event carrying the clip as a File, as a desktop drag would deliver it
    const dataTransfer = await page.evaluateHandle((base64) => {
      const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'dropped meeting.wav', { type: 'audio/wav' }));
      return transfer;
    }, readFileSync(CLIP).toString('base64'));
    await page.locator('.drop-zone').dispatchEvent('drop', { dataTransfer });
    await page.getByText('Selected: dropped meeting.wav').waitFor();

    // Upload at 64 KB/s (Chromium's network emulation) so the progress bar can be seen moving
    const cdp = await dashboard.context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 64 * 1024,
    });
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    const bar = page.getByRole('progressbar', { name: 'Upload progress' });
    await page.waitForFunction(() => {
      const progress = document.querySelector('progress') as { value: number } | null;
      return progress !== null && progress.value > 0.1 && progress.value < 0.9;
    });
    await page.getByRole('status').filter({ hasText: 'Uploaded dropped meeting.wav.' }).waitFor();
    await bar.waitFor({ state: 'detached' });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await cdp.detach();

    // Search narrows the list to the dropped file (the first test's jfk.wav is left out)
    await page.getByRole('listitem').filter({ hasText: 'jfk.wav' }).first().waitFor();
    await page.getByLabel('Search').fill('dropped');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('listitem').filter({ hasText: 'jfk.wav' }).first().waitFor({ state: 'detached' });
    const rows = page.getByRole('list').last().getByRole('listitem');
    expect(await rows.allTextContents()).toEqual([expect.stringContaining('dropped meeting.wav')]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('creates a webhook endpoint: the secret shown once and copied, then a signed delivery in its log', async () => {
    const deliveries: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push({ headers: request.headers, body: Buffer.concat(chunks) });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hooksUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    try {
      await dashboard.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: dashboard.baseUrl,
      });
      await signInAt('/webhooks');
      await page.getByLabel(/Endpoint URL/).fill(hooksUrl);
      await page.getByRole('button', { name: 'Create endpoint' }).click();

      const shown = page.getByRole('region', { name: 'Signing secret' });
      const secret = (await shown.locator('code').textContent()) ?? '';
      expect(secret.length).toBeGreaterThan(20);
      await shown.getByRole('button', { name: 'Copy secret' }).click();
      await shown.getByText('Copied').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

      // Shown once: after a reload the endpoint is listed and its secret is nowhere on the page.
      await page.reload();
      await page.getByRole('listitem').filter({ hasText: hooksUrl }).waitFor();
      expect(await page.getByRole('region', { name: 'Signing secret' }).count()).toBe(0);
      expect(await page.content()).not.toContain(secret);

      // A job completes: the receiver gets a delivery signed with the copied secret, and the log shows it.
      await page.getByRole('link', { name: 'Transcriptions' }).click();
      await page.getByLabel('Audio or video file').setInputFiles(CLIP);
      await page.getByRole('button', { name: 'Upload and transcribe' }).click();
      await page.getByRole('status').filter({ hasText: 'Uploaded jfk.wav.' }).waitFor();
      const deadline = Date.now() + 90_000;
      while (!deliveries.some((delivery) => delivery.body.includes('transcription.completed'))) {
        if (Date.now() > deadline) throw new Error('no transcription.completed delivery within 90 s');
        await page.waitForTimeout(200);
      }
      const completed = deliveries.find((delivery) => delivery.body.includes('transcription.completed'));
      expect(verifyWebhook(secret, completed?.headers ?? {}, completed?.body ?? Buffer.alloc(0)).event).toBe(
        'transcription.completed',
      );

      await page.getByRole('link', { name: 'Webhooks' }).click();
      const endpoint = page.getByRole('listitem').filter({ hasText: hooksUrl });
      const log = endpoint.getByRole('button', { name: 'Delivery log' });
      const delivered = endpoint
        .getByRole('row')
        .filter({ hasText: 'transcription.completed' })
        .getByRole('cell', { name: 'delivered', exact: true })
        // The earlier test's dropped upload may complete after the endpoint exists: a delivery of its own.
        .first();
      // The log is read when it opens; the service records the receiver's answer just after sending it.
      await log.click();
      for (let reopen = 0; !(await delivered.isVisible()) && reopen < 20; reopen++) {
        await page.waitForTimeout(250);
        await log.click();
        await log.click();
      }
      await delivered.waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    } finally {
      receiver.close();
    }
  });

  it('shows the balance and usage the API reports, and keeps workspace settings across a reload', async () => {
    await signInAt('/account');
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();

    // What the page shows is what the API answers (the cookie authenticates these GETs).
    const api = await page.evaluate(async () => {
      const read = async (path: string): Promise<unknown> =>
        ((await (await fetch(path)).json()) as { data: unknown }).data;
      return {
        balance: (await read('/v1/account/balance')) as {
          balance: number;
          freeTranscriptionsRemaining: number;
        },
        usage: (await read('/v1/account/usage?months=6')) as { months: { month: string; count: number }[] },
      };
    });
    const tiles = page.getByRole('region', { name: 'Balance' });
    // Shown with every charged digit: the jobs before cost 0.00055 EUR each, which 2 decimals would hide.
    expect(api.balance.balance).not.toBe(Number(api.balance.balance.toFixed(2)));
    const shown = (await tiles.getByText(/ EUR$/).textContent()) ?? '';
    expect(Number(shown.replace(' EUR', ''))).toBe(api.balance.balance);
    await tiles.getByText(String(api.balance.freeTranscriptionsRemaining), { exact: true }).waitFor();
    const thisMonth = api.usage.months[0];
    expect(thisMonth.count).toBeGreaterThanOrEqual(1); // the completed uploads of the tests before
    const monthRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: thisMonth.month }) });
    await monthRow
      .getByRole('cell', { name: String(thisMonth.count), exact: true })
      .first()
      .waitFor();
    await page
      .getByRole('img', { name: new RegExp(`Minutes transcribed per month:.*${thisMonth.month}`) })
      .waitFor();

    // Settings: saved, and still there after a reload.
    await page.getByLabel(/Low-balance alert below/).fill('2.5');
    await page.getByLabel(/Delete audio after/).fill('30');
    await page.getByLabel(/Delete transcripts after/).fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Save settings' }).waitFor();
    expect(await page.getByLabel(/Low-balance alert below/).inputValue()).toBe('2.5');
    expect(await page.getByLabel(/Delete audio after/).inputValue()).toBe('30');
    expect(await page.getByLabel(/Delete transcripts after/).inputValue()).toBe('');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('asks to sign in again over the page when the session ran out, then finishes what the user was doing', async () => {
    await signInAt('/vocabularies');
    await page.getByRole('heading', { name: 'Vocabularies', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('Typed before expiry');
    await page.getByLabel(/^Words and phrases/).fill('Kubernetes, gRPC');

    // The session runs out: the refresh cookie is gone and the token in memory is no longer accepted (the
    // server's real 401 for a token it cannot verify, here by sending one it never issued, once).
    await dashboard.context.clearCookies();
    let staleTokenSent = false;
    await page.route('**/v1/vocabularies', async (route) => {
      if (staleTokenSent || route.request().method() !== 'POST') return route.continue();
      staleTokenSent = true;
      await route.continue({
        headers: { ...route.request().headers(), authorization: 'Bearer expired.token.x' },
      });
    });
    await page.getByRole('button', { name: 'Create vocabulary' }).click();

    const dialog = page.getByRole('dialog', { name: 'Your session has expired' });
    await dialog.waitFor();
    await dialog.getByLabel('Email').fill(dashboard.email);
    await dialog.getByLabel('Password').fill(dashboard.password);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The same page, and the request the user made was retried with the new session.
    expect(staleTokenSent).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/app/vocabularies');
    const saved = page.getByRole('listitem').filter({ hasText: 'Typed before expiry' });
    await saved.getByText('Kubernetes, gRPC').waitFor();
    await page.unroute('**/v1/vocabularies');
  });

  it('playground: every option, the request as runnable curl and code; a key with expiry and its request log', async () => {
    await dashboard.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: dashboard.baseUrl,
    });
    await dashboard.context.clearCookies(); // the test before ends signed in
    await signInAt('/settings/security');
    // A key that expires in 30 days, for the curl command below
    await page.getByLabel('Key name').fill('Playground');
    await page.getByLabel('Expires').selectOption({ label: 'In 30 days' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent()) ?? '';
    const keyRow = page.getByRole('listitem').filter({ hasText: 'Playground' });
    expect(await keyRow.textContent()).not.toContain('expires never');

    await page.getByRole('link', { name: 'Transcriptions' }).click();
    // The Model field names the engine and model serving each tier here (GET /v1/tiers): with no Whisper model
    // installed, PocketSphinx on all three, and the note under it says the premium tiers give the same text.
    const model = page.getByLabel('Model', { exact: true });
    await page.getByTestId('tier-engine').waitFor();
    expect(await model.locator('option').allTextContents()).toEqual([
      'standard — PocketSphinx en-us',
      'premium — PocketSphinx en-us',
      'premium_jade — PocketSphinx en-us',
    ]);
    await model.selectOption('premium');
    const engineNote = (await page.getByTestId('tier-engine').textContent()) ?? '';
    expect(engineNote).toContain('Runs PocketSphinx (model en-us) · English only');
    expect(engineNote).toContain(
      'standard and premium_jade run the same PocketSphinx en-us: the same text as premium',
    );
    await model.selectOption('standard');
    // The field and its note fit a phone's width too.
    await page.setViewportSize({ width: 360, height: 800 });
    await expectNoHorizontalOverflow(page, 360);
    await page.setViewportSize({ width: 1280, height: 800 });
    // First a clip with no speech, so its job is queued first: it fails, and the next test reads why
    await page.getByLabel('Audio or video file').setInputFiles(SILENCE);
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded silence.wav.' }).waitFor();

    // Every option of the upload; the answer and the request as code appear under "Show the request"
    await page.getByLabel('Audio or video file').setInputFiles(CLIP);
    await page.getByLabel('Language').fill('en');
    await page.getByLabel('Extra words (comma-separated)').fill('Kubernetes, gRPC');
    await page.getByLabel('Speakers (optional)').fill('1');
    await page.getByLabel(/^Metadata/).fill('ticket=T-1');
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded jfk.wav.' }).waitFor();
    await page.getByText('Show the request').click();
    const code = (title: string) =>
      page.getByRole('region', { name: title, exact: true }).locator('code').textContent();
    const curl = (await code('curl')) ?? '';
    expect(curl).toContain('--form-string num_speakers=1');
    expect(curl).toContain(`--form-string 'metadata={"ticket":"T-1"}'`);
    expect(await code('TypeScript client')).toContain('metadata: {"ticket":"T-1"}');
    expect(await code('OpenAI SDK')).toContain('model: "standard"');
    const answer = JSON.parse((await code('Answer (raw JSON)')) ?? '{}') as { data: { id: string } };
    expect(answer.data.id).toMatch(/^[0-9a-f-]{36}$/);

    // The curl command runs as shown (KEY set, in the clip's folder): the service takes the same job
    const { stdout } = await run('bash', ['-c', curl], {
      cwd: CLIP_DIRECTORY,
      env: { ...process.env, KEY: key },
    });
    const viaCurl = JSON.parse(stdout) as { data: { id: string; originalFileName: string } };
    expect(viaCurl.data.originalFileName).toBe('jfk.wav');
    // Deleted at once: the queue of this busy workspace need not transcribe the clip a second time
    await run('curl', [
      '-sf',
      '-X',
      'DELETE',
      '-H',
      `X-API-KEY: ${key}`,
      `${dashboard.baseUrl}/v1/transcriptions/${viaCurl.data.id}`,
    ]);
    await run('curl', [
      '-s',
      '-H',
      `X-API-KEY: ${key}`,
      `${dashboard.baseUrl}/v1/transcriptions/${answer.data.id}x`,
    ]);

    // The key's request log: the upload (202) and the refused read (404); the 4xx filter keeps the 404
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'Requests of Playground' }).click();
    const log = page.getByRole('region', { name: 'Requests made with Playground' });
    const upload = log
      .getByRole('listitem')
      .filter({ has: page.getByText('POST /v1/transcriptions', { exact: true }) })
      .filter({ has: page.getByText('202', { exact: true }) });
    // Entries are written about a second after the request: refresh until they are there.
    for (let tries = 0; !(await upload.isVisible()) && tries < 40; tries++) {
      await page.waitForTimeout(250);
      await log.getByRole('button', { name: 'Refresh' }).click();
    }
    await upload.waitFor();
    await log.getByLabel('Status').selectOption('4xx');
    await log.getByText('404', { exact: true }).waitFor();
    await upload.waitFor({ state: 'detached' });
    await page.reload();
    expect(await keyRow.textContent()).not.toContain('last used never');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('transcript: costs to the micro-EUR, search, copy, rename speakers into the exports, caption controls; a failed job says why', async () => {
    await dashboard.context.clearCookies();
    await signInAt('/');
    await page.getByRole('heading', { name: 'Transcriptions', level: 1 }).waitFor();
    // The silent clip of the test before failed: the list row and its page say why
    const failedRow = page.getByRole('listitem').filter({ hasText: 'silence.wav' });
    await failedRow.getByText('failed', { exact: true }).waitFor({ timeout: 90_000 });
    const reason = (await failedRow.locator('.failure-reason').filter({ hasText: ':' }).textContent()) ?? '';
    expect(reason).toMatch(/^[A-Z_]+:/);
    await failedRow.getByRole('link', { name: 'silence.wav' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `This transcription failed: ${reason}` })
      .waitFor();
    expect(await page.getByText('Not ready yet.').count()).toBe(0);

    // A charged job: its cost in the list row and on its page, every digit the API gives
    await page.getByRole('link', { name: 'All transcriptions' }).click();
    const row = page
      .getByRole('listitem')
      .filter({ hasText: 'jfk.wav' })
      .filter({ has: page.getByText('completed', { exact: true }) })
      .first();
    await row.waitFor({ timeout: 90_000 });
    await row.getByRole('link', { name: 'jfk.wav' }).click();
    await page.getByRole('heading', { name: 'jfk.wav', level: 1 }).waitFor();
    const id = page.url().split('/').pop() ?? '';
    const detail = await page.evaluate(async (path) => {
      const body = (await (await fetch(path)).json()) as {
        data: {
          cost: number;
          resultJson: {
            words: { word: string; start: number; confidence?: number; speaker: string | null }[];
          };
        };
      };
      return body.data;
    }, `/v1/transcriptions/${id}`);
    expect(detail.cost).toBeGreaterThan(0);
    expect(detail.cost).not.toBe(Number(detail.cost.toFixed(2)));
    const meta = (await page.locator('.meta').textContent()) ?? '';
    expect(Number(/cost ([\d.]+) EUR/.exec(meta)?.[1])).toBe(detail.cost);

    // Word confidence: the unsure words are marked, and only those
    const words = detail.resultJson.words;
    const unsure = words.filter((word) => word.confidence !== undefined && word.confidence < 0.6);
    expect(await page.locator('.word.low-confidence').count()).toBe(unsure.length);
    // The mark is explained above the transcript whenever a word carries it.
    expect(await page.locator('.confidence-legend').count()).toBe(unsure.length > 0 ? 1 : 0);
    expect(await page.locator('.word[title^="confidence "]').count()).toBe(
      words.filter((word) => word.confidence !== undefined).length,
    );

    // A timestamp per paragraph plays from there
    await page
      .getByRole('button', { name: /^Play from 0:0\d$/ })
      .first()
      .click();
    expect(await page.locator('audio').evaluate((element) => (element as unknown as Player).paused)).toBe(
      false,
    );
    await page.locator('audio').evaluate((element) => (element as unknown as Player).pause());

    // Search marks every occurrence and counts them
    const countries = words.filter((word) => /^country/i.test(word.word)).length;
    expect(countries).toBeGreaterThan(0);
    await page.getByLabel('Search the transcript').fill('countr');
    await page
      .getByRole('status')
      .filter({ hasText: `${countries} match` })
      .waitFor();
    expect(await page.locator('.word.match').count()).toBe(countries);

    // Copy text: the transcript's words reach the clipboard
    await page.getByRole('button', { name: 'Copy text' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(words[0].word);

    // Rename the first speaker: stored, shown, and in the exports
    await page.getByText('Rename speakers').click();
    await page.getByLabel('Name for Speaker 1').fill('President Kennedy');
    await page.getByRole('button', { name: 'Save names' }).click();
    await page.getByRole('status').filter({ hasText: 'Names saved.' }).waitFor();
    await page.locator('.transcript .speaker').filter({ hasText: 'President Kennedy' }).first().waitFor();
    const downloaded = async (format: string): Promise<string> => {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: `Download ${format}` }).click(),
      ]);
      return readFileSync((await file.path()) ?? '', 'utf8');
    };
    expect(await downloaded('TXT')).toContain('President Kennedy');

    // Caption controls: one line per cue, no speaker labels
    await page.getByText('Download options').click();
    await page.getByLabel('Lines per caption').fill('1');
    await page.getByLabel('Speaker labels').uncheck();
    const srt = await downloaded('SRT');
    const cues = srt.trim().split(/\n\n/);
    expect(cues.length).toBeGreaterThan(1);
    for (const cue of cues) expect(cue.split('\n')).toHaveLength(3); // number, timing, one line
    expect(srt).not.toContain('President Kennedy');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('loads the main pages without a console error (no refresh probe before signing in, a favicon)', async () => {
    await dashboard.context.clearCookies();
    const fresh = await dashboard.context.newPage();
    const errors: string[] = [];
    fresh.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    fresh.on('pageerror', (error) => errors.push(error.message));
    await fresh.goto(`${dashboard.baseUrl}/app/`);
    await fresh.getByLabel('Email').fill(dashboard.email);
    await fresh.getByLabel('Password').fill(dashboard.password);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByRole('heading', { name: 'Transcriptions', level: 1 }).waitFor();
    for (const [link, heading] of [
      ['Vocabularies', 'Vocabularies'],
      ['Webhooks', 'Webhooks'],
      ['Account', 'Account'],
      ['Security', 'Security'],
      ['Audit', 'Audit log'],
      ['Transcriptions', 'Transcriptions'],
    ]) {
      await fresh.getByRole('link', { name: link, exact: true }).click();
      await fresh.getByRole('heading', { name: heading, level: 1 }).waitFor();
    }
    await fresh.getByRole('link', { name: 'jfk.wav' }).first().click();
    await fresh.getByRole('heading', { name: 'jfk.wav', level: 1 }).waitFor();
    // A reload restores the session through the refresh cookie (the hint says one exists)
    await fresh.reload();
    await fresh.getByRole('heading', { name: 'jfk.wav', level: 1 }).waitFor();
    expect(await fresh.evaluate(async () => (await fetch('/app/favicon.svg')).status)).toBe(200);
    await fresh.getByRole('button', { name: 'Sign out' }).click();
    await fresh.getByRole('button', { name: 'Sign in' }).waitFor();
    await fresh.reload();
    await fresh.getByRole('button', { name: 'Sign in' }).waitFor();
    await fresh.close();
    expect(errors).toEqual([]);
  });
});
