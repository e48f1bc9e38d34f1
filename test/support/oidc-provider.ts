import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** A client the provider knows (our service, with its callback URL). */
export interface OidcClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface OidcAccount {
  email: string;
  /** Default true. */
  verified?: boolean;
  /** A disabled account cannot sign in, and its refresh tokens are refused. */
  disabled?: boolean;
}

export interface OidcProviderProcess {
  issuer: string;
  setAccount: (sub: string, account: OidcAccount) => Promise<void>;
  /** From now on its JWKS shows a key other than the one it signs ID tokens with. */
  publishForeignKey: (on?: boolean) => Promise<void>;
  stop: () => Promise<void>;
}

const SCRIPT = join(__dirname, 'oidc-provider-process.mjs');

/** Starts the real OpenID provider (oidc-provider) in its own process on a free loopback port. */
export async function startOidcProvider(clients: OidcClient[]): Promise<OidcProviderProcess> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env, OIDC_CLIENTS: JSON.stringify(clients), NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^issuer (\S+)$/m.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}): ${errors}`)));
  });
  const control = async (path: string): Promise<void> => {
    const response = await fetch(`${issuer}/__test/${path}`, { method: 'POST' });
    if (response.status !== 204) throw new Error(`oidc-provider ${path}: ${response.status}`);
  };
  return {
    issuer,
    setAccount: (sub, account) =>
      control(
        `accounts?${new URLSearchParams({
          sub,
          email: account.email,
          verified: String(account.verified ?? true),
          disabled: String(account.disabled ?? false),
        }).toString()}`,
      ),
    publishForeignKey: (on = true) => control(`foreign-key?on=${on}`),
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Signs in at the provider as a browser would, through its own login and consent pages (HTTP only, a cookie
 * jar of its own), starting at `authorizationUrl`; answers the URL the provider redirects to at the end (the
 * service's callback with `code` and `state`, or with `error`), without following it.
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  const origin = new URL(authorizationUrl).origin;
  const send = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  let url = authorizationUrl;
  for (let step = 0; step < 12; step += 1) {
    const response = await send(url);
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.origin !== origin) return next;
      url = next.href;
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !prompt)
      throw new Error(`oidc-provider answered ${response.status}: ${page.slice(0, 500)}`);
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'any' } : {}) });
    const submitted = await send(new URL(action, url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const after = submitted.headers.get('location');
    if (!after) throw new Error(`oidc-provider ${prompt} answered ${submitted.status}`);
    const next = new URL(after, url);
    if (next.origin !== origin) return next;
    url = next.href;
  }
  throw new Error('oidc-provider: too many steps');
}
