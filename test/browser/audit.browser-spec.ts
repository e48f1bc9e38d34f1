import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { Dashboard, expectNoHorizontalOverflow, signInAt, startDashboard } from './browser-harness';

const WIDTHS = [1280, 360];

/**
 * The dashboard's Audit page in Chromium, against the real service: the acts of this session appear, the
 * filters and pages select them, the export link downloads what the filters select, and at 1280 and 360 px
 * nothing is wider than the window (the test fails on horizontal overflow).
 */
describe('Audit page in Chromium', () => {
  let dashboard: Dashboard;
  let page: Page;
  beforeAll(async () => {
    dashboard = await startDashboard();
    page = await dashboard.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(() => dashboard?.close());

  it('shows this session’s acts, filters and pages them, exports what the filters select, and fits 1280 and 360 px', async () => {
    await signInAt(page, dashboard, '/settings/security');

    // Two acts through the dashboard itself: a key made, then revoked.
    await page.getByLabel('Key name').fill('audited key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('region', { name: 'New API key' }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    const revoke = page.getByRole('button', { name: 'Revoke audited key' });
    await revoke.click();
    await revoke.waitFor({ state: 'detached' });
    // More events than a page holds: exports (GET, the session cookie authenticates them) are recorded too.
    await page.evaluate(async () => {
      for (let index = 0; index < 26; index++) await (await fetch('/v1/audit-events/export')).text();
    });

    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const events = page.getByRole('list', { name: 'Audit events' }).getByRole('listitem');
    await events.first().waitFor();
    // Newest first: the exports, and (on the next page) the key revoked, created and the sign-in.
    await events.filter({ hasText: 'audit_log.exported' }).first().waitFor();
    expect(await events.count()).toBe(25);
    await page.getByRole('button', { name: 'Next page' }).click();
    await events.filter({ hasText: 'api_key.revoked' }).waitFor();
    await events.filter({ hasText: 'auth.sign_in' }).first().waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await events.filter({ hasText: 'audit_log.exported' }).first().waitFor();

    // A filter: only the revocation, by a user with a session, and its key's name and prefix behind Details.
    await page.getByLabel('Action').selectOption('api_key.revoked');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await events.filter({ hasText: 'audit_log.exported' }).first().waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Next page' }).and(page.locator(':disabled')).waitFor();
    expect(await events.count()).toBe(1);
    const revoked = events.first();
    await revoked.getByText(/user [0-9a-f]{8}… · session/).waitFor();
    await revoked.getByText('Details').click();
    await revoked.getByText(/"name":"audited key"/).waitFor();

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await revoked.getByText(/"name":"audited key"/).waitFor();
      await expectNoHorizontalOverflow(page, width);
    }
    // The whole log at 360 px too (the longest action names, ids and addresses).
    await page.getByLabel('Action').selectOption('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await events.nth(24).waitFor();
    await expectNoHorizontalOverflow(page, 360);
    await page.setViewportSize({ width: 1280, height: 800 });

    // The export link downloads the filtered log as NDJSON.
    await page.getByLabel('Action').selectOption('api_key.created');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await events.filter({ hasText: 'audit_log.exported' }).first().waitFor({ state: 'detached' });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export NDJSON' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('audit-events.ndjson');
    const lines = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; after: { name: string } | null });
    // The operator's first key (workspace:create), then the one made here; oldest first.
    expect(lines.map((line) => line.action)).toEqual(['api_key.created', 'api_key.created']);
    expect(lines[1].after?.name).toBe('audited key');
  });
});
