import type { Exchange } from './http-client';
import type { RunContext } from './run-context';
import { unknownId, type RunState } from './run-state';

function cookie(exchange: Exchange, name: string): string | undefined {
  // `stt_refresh`, or `__Secure-stt_refresh` where the deployment sets Secure cookies.
  const set = exchange.setCookies.find(
    (line) => line.startsWith(`${name}=`) || line.startsWith(`__Secure-${name}=`),
  );
  return set?.split(';')[0];
}

/**
 * The dashboard's operations. With --email/--password the run signs in and covers them with the session;
 * without, each is still called with the API key (403 `forbidden`) and without a credential (401).
 */
export async function sessionCases(run: RunContext, state: RunState): Promise<void> {
  const { email, password, mode } = run.options;

  await run.case('login', 'a body of the wrong types is 422 validation', async (s) => {
    const answer = await s.call('login', {
      credential: s.credential('none'),
      json: { email: 5, password: true },
    });
    s.expect(answer, 422, 'validation');
  });
  await run.case(
    'signup',
    'a body that breaks the rules is 422 validation (404 where sign-up is off)',
    async (s) => {
      const answer = await s.call('signup', {
        credential: s.credential('none'),
        json: { email: 'not-an-address', password: 'short', workspaceName: '' },
      });
      s.expect(answer, [404, 422]);
    },
  );
  run.skipped('signup', 'creates a workspace', 'a workspace cannot be deleted through the API; not created');
  await run.case('refreshSession', 'without the refresh cookie is 401 invalid-refresh-token', async (s) => {
    s.expect(
      await s.call('refreshSession', { credential: s.credential('none') }),
      401,
      'invalid-refresh-token',
    );
  });
  await run.case('logout', 'without a sign-in still answers 204', async (s) => {
    s.expect(await s.call('logout', { credential: s.credential('none') }), 204);
  });

  await run.case('acceptInvitation', 'an unknown invitation token is 404 not-found', async (s) => {
    const answer = await s.call('acceptInvitation', {
      credential: s.credential('none'),
      json: { token: `inv_${state.tag}`, password: 'stt-contract password' },
    });
    s.expect(answer, 404, 'not-found');
  });

  await run.case('startSsoSignIn', 'a workspace without single sign-on is 404 not-found', async (s) => {
    const answer = await s.call('startSsoSignIn', {
      credential: s.credential('none'),
      query: { workspace: unknownId() },
    });
    s.expect(answer, 404, 'not-found');
  });
  await run.case(
    'completeSsoSignIn',
    'without a login of this browser: back to the dashboard, refused',
    async (s) => {
      const answer = await s.call('completeSsoSignIn', {
        credential: s.credential('none'),
        query: { code: 'stt-contract', state: state.tag },
      });
      s.expect(answer, 303);
    },
  );

  const sessionOperations: Array<[string, Parameters<RunContext['client']['call']>[1]]> = [
    ['listApiKeys', { credential: { kind: 'none' } }],
    ['createApiKey', { credential: { kind: 'none' }, json: { name: state.tag } }],
    ['revokeApiKey', { credential: { kind: 'none' }, path: { id: unknownId() } }],
    ['getAccountSettings', { credential: { kind: 'none' } }],
    ['updateAccountSettings', { credential: { kind: 'none' }, json: { lowBalanceThreshold: 1 } }],
    ['listWorkspaces', { credential: { kind: 'none' } }],
    ['leaveWorkspace', { credential: { kind: 'none' } }],
    // Owner-only (`sso:manage`): no key scope grants it.
    ['getSsoConnection', { credential: { kind: 'none' } }],
    ['deleteSsoConnection', { credential: { kind: 'none' } }],
  ];
  for (const [operationId, call] of sessionOperations) {
    await run.case(
      operationId,
      'an API key is refused with 403 forbidden (a session operation)',
      async (s) => {
        s.expect(await s.call(operationId, { ...call, credential: s.credential('key') }), 403, 'forbidden');
      },
    );
  }

  if (email === undefined || password === undefined) {
    for (const operationId of ['login', 'refreshSession', 'listApiKeys', 'createApiKey', 'revokeApiKey']) {
      run.skipped(operationId, 'with a dashboard session', 'needs --email and --password');
    }
    run.skipped('getAccountSettings', 'with a dashboard session', 'needs --email and --password');
    run.skipped('updateAccountSettings', 'with a dashboard session', 'needs --email and --password');
    return;
  }

  await run.case('login', 'a wrong password is 401 invalid-credentials', async (s) => {
    const answer = await s.call('login', {
      credential: s.credential('none'),
      json: { email, password: `${password}-not` },
    });
    s.expect(answer, 401, 'invalid-credentials');
  });
  await run.case('login', 'signs in: access token and the two session cookies', async (s) => {
    const answer = await s.call('login', { credential: s.credential('none'), json: { email, password } });
    s.expect(answer, 200);
    const refreshCookie = cookie(answer, 'stt_refresh');
    const sessionCookie = cookie(answer, 'stt_session');
    const accessToken = (answer.body as { data?: { accessToken?: string } }).data?.accessToken;
    if (!refreshCookie || !sessionCookie || !accessToken) {
      return s.fail(
        `login: expected an accessToken and the stt_refresh and stt_session cookies, got ${answer.setCookies.join(' | ')}`,
      );
    }
    state.session = { accessToken, refreshCookie, sessionCookie };
    run.jwt = accessToken;
  });
  const session = state.session;
  if (!session) return;
  run.onCleanup('sign out (logout)', async () => {
    await run.case('logout', 'signs out; the access token is refused from then on', async (s) => {
      const answer = await s.call('logout', {
        credential: { kind: 'cookie', cookie: session.refreshCookie },
      });
      s.expect(answer, 204);
      const after = await s.call('getAccountSettings', {
        credential: { kind: 'bearer', token: session.accessToken },
      });
      s.expect(after, 401, 'invalid-token');
    });
  });

  await run.case('refreshSession', 'the refresh cookie gives a new access token and rotates', async (s) => {
    const answer = await s.call('refreshSession', {
      credential: { kind: 'cookie', cookie: session.refreshCookie },
    });
    s.expect(answer, 200);
    const rotated = cookie(answer, 'stt_refresh');
    const accessToken = (answer.body as { data?: { accessToken?: string } }).data?.accessToken;
    s.check(
      rotated !== undefined && rotated !== session.refreshCookie,
      'the stt_refresh cookie was not rotated',
    );
    if (rotated) session.refreshCookie = rotated;
    if (accessToken) {
      session.accessToken = accessToken;
      run.jwt = accessToken;
    }
  });

  await run.case(
    'getAccountSettings',
    'reads the settings with the JWT and with the stt_session cookie',
    async (s) => {
      const answer = await s.call('getAccountSettings', { credential: s.credential('jwt') });
      s.expect(answer, 200);
      state.originalSettings = (answer.body as { data: RunState['originalSettings'] }).data;
      const byCookie = await s.call('getAccountSettings', {
        credential: { kind: 'cookie', cookie: session.sessionCookie },
      });
      s.expect(byCookie, 200);
    },
  );
  await run.case('listApiKeys', 'lists the workspace’s keys', async (s) => {
    s.expect(await s.call('listApiKeys', { credential: s.credential('jwt') }), 200);
  });
  await run.case('listApiKeyRequests', 'reads the request log of a key of the workspace', async (s) => {
    const keys = await s.call('listApiKeys', { credential: s.credential('jwt') });
    const first = ((keys.body as { data?: Array<{ id: string }> }).data ?? [])[0];
    if (!first) return s.skip('the workspace has no API key');
    s.expect(
      await s.call('listApiKeyRequests', { credential: s.credential('jwt'), path: { id: first.id } }),
      200,
    );
  });
  await run.case(
    'updateAccountSettings',
    'refuses a negative threshold and unknown members (422 validation)',
    async (s) => {
      for (const json of [
        { lowBalanceThreshold: -1 },
        { lowBalanceThreshold: 'high' },
        { stt_contract_unknown: 1 },
      ]) {
        s.expect(
          await s.call('updateAccountSettings', { credential: s.credential('jwt'), json }),
          422,
          'validation',
        );
      }
    },
  );

  if (mode === 'read-only') {
    run.skipped('updateAccountSettings', 'changes the settings', 'read-only mode changes no settings');
    run.skipped('createApiKey', 'creates, uses and revokes a key', 'read-only mode creates no API key');
    run.skipped('revokeApiKey', 'revokes the key it created', 'read-only mode creates no API key');
    return;
  }

  const original = state.originalSettings;
  await run.case('updateAccountSettings', 'writes the settings back unchanged (200)', async (s) => {
    if (!original) return s.skip('the settings could not be read');
    const answer = await s.call('updateAccountSettings', { credential: s.credential('jwt'), json: original });
    s.expect(answer, 200);
  });
  if (original) {
    run.onCleanup('restore the account settings', async () => {
      await run.case('updateAccountSettings', 'restores the settings found at the start', async (s) => {
        const answer = await s.call('updateAccountSettings', {
          credential: { kind: 'bearer', token: session.accessToken },
          json: original,
        });
        s.expect(answer, 200);
      });
    });
  }

  let created: { id: string; key: string } | undefined;
  await run.case('createApiKey', 'creates a key that authenticates at once', async (s) => {
    const answer = await s.call('createApiKey', {
      credential: s.credential('jwt'),
      json: { name: state.tag },
    });
    s.expect(answer, 201);
    created = (answer.body as { data: { id: string; key: string } }).data;
    const revokeLater = created;
    run.onCleanup(`revoke API key ${created.id}`, async () => {
      await run.client.call('revokeApiKey', {
        credential: { kind: 'bearer', token: session.accessToken },
        path: { id: revokeLater.id },
      });
    });
    s.expect(await s.call('getBalance', { credential: { kind: 'bearer', token: created.key } }), 200);
  });
  await run.case('createApiKey', 'a name out of bounds is 422 validation', async (s) => {
    const answer = await s.call('createApiKey', {
      credential: s.credential('jwt'),
      json: { name: 'x'.repeat(101) },
    });
    s.expect(answer, 422, 'validation');
  });
  await run.case(
    'revokeApiKey',
    'revokes the key; it is refused at once; a second revoke is 404',
    async (s) => {
      if (!created) return s.skip('createApiKey did not create a key');
      s.expect(
        await s.call('revokeApiKey', { credential: s.credential('jwt'), path: { id: created.id } }),
        204,
      );
      s.expect(
        await s.call('getBalance', { credential: { kind: 'bearer', token: created.key } }),
        401,
        'invalid-api-key',
      );
      s.expect(
        await s.call('revokeApiKey', { credential: s.credential('jwt'), path: { id: created.id } }),
        404,
        'not-found',
      );
    },
  );
}
