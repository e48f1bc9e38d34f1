import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Dashboard, startDashboard } from './browser-harness';

const OUT = join(__dirname, '..', '..', 'docs', 'screenshots');
const CLIP = join(__dirname, '..', 'fixtures', 'audio', 'whisper.cpp', 'jfk.wav');
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
    await page.getByRole('button', { name: 'Upload and transcribe' }).click();
    const row = page.getByRole('listitem').filter({ hasText: 'jfk.wav' });
    await row.getByText('completed', { exact: true }).waitFor({ timeout: 90_000 });
    await shoot('transcriptions');

    await row.getByRole('link', { name: 'jfk.wav' }).click();
    await page
      .getByRole('button', { name: /^country, / })
      .first()
      .click();
    await shoot('transcript');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(OUT, 'transcript-desktop-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByLabel('Key name').fill('CI pipeline');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('region', { name: 'New API key' }).waitFor();
    await shoot('security');

    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('img', { name: /Minutes transcribed per month/ }).waitFor();
    await page.getByLabel(/Delete audio after/).fill('30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await shoot('account');
  });
});
