import type { Page } from 'playwright-core';
import { Dashboard, expectNoHorizontalOverflow, signInAt, startDashboard } from './browser-harness';

/**
 * The Security page in Chromium (issue 35 item 10): with keys of long names and a request log open, nothing is
 * wider than the window at 1280 and 360 px, every Revoke button lies wholly inside it, and a key's prefix stays
 * on one line. The navigation links to the API reference, which the service serves.
 */
describe('Security page in Chromium', () => {
  let dashboard: Dashboard;
  let page: Page;
  beforeAll(async () => {
    dashboard = await startDashboard();
    page = await dashboard.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(() => dashboard?.close());

  it('fits 1280 and 360 px with its controls whole, and links to the API reference', async () => {
    await signInAt(page, dashboard, '/settings/security');
    const names = ['Nightly batch export for the compliance archive of the EMEA region', 'ci'];
    for (const name of names) {
      await page.getByLabel('Key name').fill(name);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('button', { name: `Revoke ${name}` }).waitFor();
    }
    await page.getByRole('button', { name: `Requests of ${names[0]}` }).click();
    await page.getByRole('region', { name: `Requests made with ${names[0]}` }).waitFor();

    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoHorizontalOverflow(page, width);
      for (const name of names) {
        const box = await page.getByRole('button', { name: `Revoke ${name}` }).boundingBox();
        expect({ width, name, inside: box !== null && box.x >= 0 && box.x + box.width <= width }).toEqual({
          width,
          name,
          inside: true,
        });
      }
      // One line: an inline element that wraps has a box per line.
      const lines = await page
        .locator('.key-prefix')
        .first()
        .evaluate(
          (element) => (element as { getClientRects: () => { length: number } }).getClientRects().length,
        );
      expect({ width, prefixLines: lines }).toEqual({ width, prefixLines: 1 });
    }

    const reference = page.getByRole('link', { name: 'API reference' });
    expect(await reference.getAttribute('href')).toBe('/docs');
    expect((await fetch(`${dashboard.baseUrl}/docs`)).status).toBe(200);
  });
});
