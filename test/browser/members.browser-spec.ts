import type { Page } from 'playwright-core';
import { Dashboard, expectNoHorizontalOverflow, signInAt, startDashboard } from './browser-harness';

/**
 * The dashboard's Members page in Chromium, against the real service: the owner invites a viewer, the token
 * shown once is accepted (as the invitee would, over HTTP), the new member appears, gets another role from the
 * select, and is removed; at 1280 and 360 px nothing is wider than the window.
 */
describe('Members page in Chromium', () => {
  let dashboard: Dashboard;
  let page: Page;
  beforeAll(async () => {
    dashboard = await startDashboard();
    page = await dashboard.context.newPage();
    page.setDefaultTimeout(20_000);
  });
  afterAll(() => dashboard?.close());

  it('invites, shows the joined member, changes their role and removes them', async () => {
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await signInAt(page, dashboard, '/settings/members');
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.getByText(dashboard.email, { exact: true }).first().waitFor();

    const invitee = `invitee-${Date.now()}@example.com`;
    const form = page.getByRole('form', { name: 'Invite a member' });
    await form.getByLabel('Email').fill(invitee);
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('button', { name: 'Invite' }).click();
    const token = (await page.getByLabel('Invitation token').textContent()) ?? '';
    expect(token).toMatch(/^inv_[0-9A-Za-z_-]{43}$/);
    await page.getByText(`viewer · pending`).waitFor();

    const accepted = await fetch(`${dashboard.baseUrl}/v1/auth/invitations/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, password: 'the invitee chose this password' }),
    });
    expect(accepted.status).toBe(200);

    await page.reload();
    const role = page.getByLabel(`Role of ${invitee}`);
    await role.waitFor();
    expect(await role.inputValue()).toBe('viewer');
    await page.getByText('viewer · accepted').waitFor();
    // The wait is registered before the change: the PATCH may be answered before selectOption returns.
    const changed = page.waitForResponse(
      (response) => response.url().includes('/v1/workspace/members/') && response.status() === 200,
    );
    await role.selectOption('member');
    await changed;
    await page.reload();
    expect(await page.getByLabel(`Role of ${invitee}`).inputValue()).toBe('member');

    // The owner's own role cannot go: the last owner is kept, and the page shows the service's refusal.
    await page.getByLabel(`Role of ${dashboard.email}`).selectOption('admin');
    await page
      .getByRole('alert')
      .filter({ hasText: /last owner/ })
      .waitFor();

    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoHorizontalOverflow(page, width);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    page.once('dialog', (dialog) => void dialog.accept());
    const remove = page.getByRole('button', { name: `Remove ${invitee}` });
    await remove.click();
    await remove.waitFor({ state: 'detached' });
    expect(errors.filter((text) => !/409|Conflict/.test(text))).toEqual([]);
  });
});
