// A real OpenID provider (oidc-provider, the certified implementation) for the single sign-on tests: started
// as its own process by test/support/oidc-provider.ts, since the package is ESM-only and runs as it would in
// production. Its sign-in pages are the package's own (`devInteractions`: any login, any password; the
// account's claims come from the table below). Beside the protocol it answers three test controls under
// /__test/ (this file's own, never part of the OpenID protocol): set or disable an account, and publish a
// key other than the one it signs with (an ID token "signed by another key").
import { generateKeyPair, exportJWK } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT ?? 0);
const clients = JSON.parse(process.env.OIDC_CLIENTS ?? '[]');

/** sub → { email, email_verified, disabled } */
const accounts = new Map();

async function signingKey(kid) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

const signing = await signingKey('signing-key');
const foreign = await signingKey('signing-key');
let publishForeignKey = false;

function publicPart(jwk) {
  const { kid, kty, n, e, alg, use } = jwk;
  return { kid, kty, n, e, alg, use };
}

const server = await new Promise((resolve) => {
  const probe = (listening) => resolve(listening);
  import('node:http').then(({ createServer }) => {
    const listening = createServer();
    listening.listen(port, '127.0.0.1', () => probe(listening));
  });
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: clients.map((client) => ({
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...client,
  })),
  jwks: { keys: [signing] },
  cookies: { keys: ['oidc-provider-test-cookie-key-0123456789'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  // A refresh token for every code (the service re-checks the account with it at each of its own refreshes).
  issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
  async findAccount(ctx, sub) {
    const account = accounts.get(sub);
    if (!account || account.disabled) return undefined;
    return {
      accountId: sub,
      async claims() {
        return { sub, email: account.email, email_verified: account.email_verified };
      },
    };
  },
});

provider.use(async (ctx, next) => {
  if (ctx.path === '/__test/accounts' && ctx.method === 'POST') {
    const { sub, email, verified, disabled } = ctx.query;
    accounts.set(String(sub), {
      email: String(email ?? `${sub}@example.com`),
      email_verified: verified !== 'false',
      disabled: disabled === 'true',
    });
    ctx.status = 204;
    return;
  }
  if (ctx.path === '/__test/foreign-key' && ctx.method === 'POST') {
    publishForeignKey = ctx.query.on !== 'false';
    ctx.status = 204;
    return;
  }
  await next();
  if (ctx.path === '/jwks' && publishForeignKey) {
    ctx.body = { keys: [publicPart(foreign)] };
  }
});

server.on('request', provider.callback());
process.stdout.write(`issuer ${issuer}\n`);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
