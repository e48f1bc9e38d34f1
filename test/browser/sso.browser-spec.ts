import type { Page } from 'playwright-core';
import { OidcProviderProcess, startOidcProvider } from '../support/oidc-provider';
import { Dashboard, signInAt, startDashboard } from './browser-harness';

const CLIENT_ID = 'stt-browser';
const CLIENT_SECRET = 'an-sso-client-secret-for-the-browser-test';

/**
 * Single sign-on in Chromium against a real OpenID provider (oidc-provider, its own login and consent pages):
 * the owner sets the workspace's SSO on the Members page, a person the provider knows follows the sign-in link, signs in and
 * consents at the provider, lands on the dashboard as a new member (just in time) and signs out; an email outside
 * the allowed domains comes back to the sign-in page with the reason.
 */
describe('Single sign-on in Chromium', () => {
  let dashboard: Dashboard;
  let provider: OidcProviderProcess;
  let page: Page;
  let workspaceId: string;
  let ownerToken: string;

  beforeAll(async () => {
    dashboard = await startDashboard(undefined, [], (baseUrl) => ({
      PUBLIC_URL: baseUrl,
      SSO_ALLOW_PRIVATE_ISSUERS: 'true',
    }));
    provider = await startOidcProvider([
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${dashboard.baseUrl}/v1/auth/sso/callback`],
      },
    ]);
    page = await dashboard.context.newPage();
    page.setDefaultTimeout(20_000);

    const signedIn = await fetch(`${dashboard.baseUrl}/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: dashboard.email, password: dashboard.password }),
    });
    const session = (await signedIn.json()) as { data: { accessToken: string } };
    ownerToken = session.data.accessToken;
  });
  afterAll(async () => {
    await dashboard?.close();
    await provider?.stop();
  });

  /** From the dashboard's sign-in link through the provider's own login and consent pages. */
  async function signInThroughProvider(login: string): Promise<void> {
    await page.goto(`${dashboard.baseUrl}/app/?sso=${workspaceId}`);
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password the provider accepts');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  it('the owner sets single sign-on on the Members page (the provider is asked before it is saved)', async () => {
    await signInAt(page, dashboard, '/settings/members');
    const form = page.getByRole('form', { name: 'Single sign-on setting' });
    await form.getByLabel('Issuer URL').fill(`${provider.issuer}/`);
    await form.getByLabel('Client ID').fill(CLIENT_ID);
    await form.getByLabel('Client secret').fill('not-the-secret');
    await form.getByLabel('Allowed email domains').fill('dashboard.example');
    await form.getByRole('button', { name: 'Save' }).click();
    // A wrong secret is only seen at a sign-in; a wrong issuer now: the service's 422, as it comes.
    await form.getByLabel('Issuer URL').fill('http://127.0.0.1:9/nothing');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('alert').filter({ hasText: /discovery failed/ }).waitFor();
    await form.getByLabel('Issuer URL').fill(provider.issuer);
    await form.getByLabel('Client secret').fill(CLIENT_SECRET);
    await form.getByRole('button', { name: 'Save' }).click();
    const link = page.getByLabel('Single sign-on link');
    await link.waitFor();
    const signInUrl = new URL((await link.textContent()) ?? '');
    expect(signInUrl.origin).toBe(dashboard.baseUrl);
    workspaceId = signInUrl.searchParams.get('workspace') ?? '';
    expect(workspaceId).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  });

  it('a new member signs in at the provider, lands on the dashboard (joined just in time) and signs out', async () => {
    const email = `grace-${Date.now()}@dashboard.example`;
    await provider.setAccount('grace', { email });
    await signInThroughProvider('grace');
    await page.waitForURL(`${dashboard.baseUrl}/app/`);
    await page.getByText(email, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    const members = await fetch(`${dashboard.baseUrl}/v1/workspace/members`, {
      headers: { Authorization: `Bearer ${ownerToken}` },
    });
    const list = (await members.json()) as { data: Array<{ email: string; role: string }> };
    expect(list.data.find((member) => member.email === email)?.role).toBe('member');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  });

  it('an email outside the allowed domains comes back to the sign-in page with the reason', async () => {
    await provider.setAccount('intruder', { email: 'intruder@elsewhere.example' });
    // Signing out of the dashboard ends the local sign-in only; the provider still knows grace's browser.
    await dashboard.context.clearCookies();
    await signInThroughProvider('intruder');
    await page.waitForURL(`${dashboard.baseUrl}/app/?sso_error=email-domain`);
    await page
      .getByRole('alert')
      .filter({ hasText: /not in a domain/ })
      .waitFor();
  });
});
