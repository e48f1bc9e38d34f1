import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Dashboard, startDashboard } from './browser-harness';

const OUT = join(__dirname, '..', '..', 'docs', 'screenshots');
const CLIP = join(__dirname, '..', 'fixtures', 'audio', 'whisper.cpp', 'jfk.wav');
const SILENCE = join(__dirname, '..', 'fixtures', 'audio', 'kaldi-gstreamer-server', 'silence.wav');
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 360, height: 780 },
];

/** Every page of the dashboard at desktop and phone width (light), plus the transcript in dark. */
describe('dashboard screenshots', () => {
  let dashboard: Dashboard;
  let page: Page;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    dashboard = await startDashboard();
    page = await dashboard.context.newPage();
    page.setDefaultTimeout(30_000);
  });
  afterAll(() => dashboard?.close());

  async function shoot(name: string): Promise<void> {
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.screenshot({ path: join(OUT, `${name}-${size.name}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  it('takes them', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${dashboard.baseUrl}/app/`);
    await page.getByLabel('Email').waitFor();
    await shoot('sign-in');
    await page.getByLabel('Email').fill(dashboard.email);
    await page.getByLabel('Password').fill(dashboard.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('link', { name: 'Vocabularies' }).click();
    await page.getByLabel('Name').fill('Product names');
    await page.getByLabel(/Words and phrases/).fill('Kubernetes\nGrüezi\nPocketSphinx');
    await page.getByRole('button', { name: 'Create vocabulary' }).click();
    await page.getByRole('button', { name: 'Edit Product names' }).waitFor();
    await shoot('vocabularies');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel(/Endpoint URL/).fill('http://127.0.0.1:9/hooks');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('button', { name: 'Delivery log' }).first().waitFor();
    await shoot('webhooks');

    await page.getByRole('link', { name: 'Transcriptions' }).click();
    await page.getByLabel('Audio or video file').setInputFiles(CLIP);
    await page.getByLabel('Language').fill('en');
    await page.getByLabel('Speakers (optional)').fill('1');
    await page.getByLabel(/^Metadata/).fill('ticket=T-1');
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    await page.getByText('Show the request').click();
    await shoot('playground');
    await page.getByText('Show the request').click();
    // A job that fails, for its reason in the list
    await page.getByLabel('Audio or video file').setInputFiles(SILENCE);
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    const failed = page.getByRole('listitem').filter({ hasText: 'silence.wav' });
    await failed.getByText('failed', { exact: true }).waitFor({ timeout: 90_000 });
    const row = page.getByRole('listitem').filter({ hasText: 'jfk.wav' });
    await row.getByText('completed', { exact: true }).waitFor({ timeout: 90_000 });
    await page.reload();
    await failed.locator('.failure-reason').waitFor();
    await shoot('transcriptions');

    await row.getByRole('link', { name: 'jfk.wav' }).click();
    await page.getByText('Rename speakers').click();
    await page.getByLabel('Name for Speaker 1').fill('President Kennedy');
    await page.getByRole('button', { name: 'Save names' }).click();
    await page.getByRole('status').filter({ hasText: 'Names saved.' }).waitFor();
    await page.getByLabel('Search the transcript').fill('country');
    await page
      .getByRole('button', { name: /^country, / })
      .first()
      .click();
    await page.locator('audio').evaluate((element) => (element as unknown as { pause: () => void }).pause());
    await shoot('transcript');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(OUT, 'transcript-desktop-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByLabel('Key name').fill('CI pipeline');
    await page.getByLabel('Expires').selectOption({ label: 'In 90 days' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent()) ?? '';
    for (const path of ['/v1/account/balance', '/v1/transcriptions?limit=5', '/v1/transcriptions/unknown']) {
      execFileSync('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-H',
        `X-API-KEY: ${key}`,
        `${dashboard.baseUrl}${path}`,
      ]);
    }
    await page.getByRole('button', { name: 'Requests of CI pipeline' }).click();
    const log = page.getByRole('region', { name: 'Requests made with CI pipeline' });
    while ((await log.getByRole('row').count()) < 4) {
      await page.waitForTimeout(250);
      await log.getByRole('button', { name: 'Refresh' }).click();
    }
    await shoot('security');

    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('img', { name: /Minutes transcribed per month/ }).waitFor();
    await page.getByLabel(/Delete audio after/).fill('30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await shoot('account');
  });
});
