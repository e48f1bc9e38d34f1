import type { Page } from 'playwright-core';
import { OidcProviderProcess, startOidcProvider } from '../support/oidc-provider';
import { Dashboard, startDashboard } from './browser-harness';

const CLIENT_ID = 'stt-browser';
const CLIENT_SECRET = 'an-sso-client-secret-for-the-browser-test';

/**
 * Single sign-on in Chromium against a real OpenID provider (oidc-provider, its own login and consent pages):
 * the owner sets the workspace's SSO, a person the provider knows follows the sign-in link, signs in and
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
    const session = (await signedIn.json()) as { data: { accessToken: string; workspace: { id: string } } };
    ownerToken = session.data.accessToken;
    workspaceId = session.data.workspace.id;
    const put = await fetch(`${dashboard.baseUrl}/v1/workspace/sso`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ownerToken}` },
      body: JSON.stringify({
        issuer: provider.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        allowedDomains: ['dashboard.example'],
      }),
    });
    expect(put.status).toBe(200);
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
