import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { Dashboard, startDashboard } from './browser-harness';

const run = promisify(execFile);
const CLIP = join(__dirname, '..', 'fixtures', 'audio', 'whisper.cpp', 'jfk.wav');

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

describe('Dashboard in Chromium (issue 13)', () => {
  let dashboard: Dashboard;
  let page: Page;
  beforeAll(async () => {
    dashboard = await startDashboard();
    page = await dashboard.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(() => dashboard?.close());

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
    await page.goto(`${dashboard.baseUrl}/app/`);

    // Sign in
    await page.getByLabel('Email').fill(dashboard.email);
    await page.getByLabel('Password').fill(dashboard.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Transcriptions', level: 1 }).waitFor();

    // Upload a real clip; the live status (EventSource, cookie-authenticated) turns completed
    await page.getByLabel('Audio or video file').setInputFiles(CLIP);
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded jfk.wav.' }).waitFor();
    const row = page.getByRole('listitem').filter({ hasText: 'jfk.wav' });
    await row.getByText('completed', { exact: true }).waitFor({ timeout: 90_000 });

    // Transcript: clicking a word seeks the player to the word's start
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
    const target = detail.resultJson.words[3];
    const words = page.getByRole('button', { name: new RegExp(`^${target.word}, `) });
    await words.first().click();
    const currentTime = await page
      .locator('audio')
      .evaluate((audio) => (audio as unknown as { currentTime: number }).currentTime);
    expect(currentTime).toBeCloseTo(target.start, 3);
    expect(await words.first().getAttribute('aria-current')).toBe('true');

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

  it('asks to sign in again over the page when the session ran out, then finishes what the user was doing', async () => {
    await page.goto(`${dashboard.baseUrl}/app/vocabularies`);
    await page.getByLabel('Email').fill(dashboard.email);
    await page.getByLabel('Password').fill(dashboard.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
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
});
