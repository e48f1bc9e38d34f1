import type { RunContext } from './run-context';
import type { RunState } from './run-state';

/** System operations (no credential) and the account reads every mode makes. */
export async function systemAndAccountCases(run: RunContext, state: RunState): Promise<void> {
  await run.case('getHealth', 'answers 200 without a credential', async (s) => {
    const answer = await s.call('getHealth', { credential: s.credential('none') });
    s.expect(answer, 200);
    // A load balancer's probe is never counted, so it carries no rate-limit headers.
    s.check(answer.headers['x-ratelimit-limit'] === undefined, 'getHealth carries x-ratelimit-limit');
  });
  await run.case('getReadiness', 'answers 200 (every part up) without a credential', async (s) => {
    s.expect(await s.call('getReadiness', { credential: s.credential('none') }), 200);
  });
  await run.case('listLanguages', 'lists the 99 languages without a credential', async (s) => {
    const answer = await s.call('listLanguages', { credential: s.credential('none') });
    s.expect(answer, 200);
    const data = (answer.body as { data?: unknown[] }).data;
    s.check(Array.isArray(data) && data.length === 99, `$.data: expected 99 languages, got ${data?.length}`);
  });

  await run.case(
    'listTiers',
    'names the engine and model of each of the three tiers (an API key)',
    async (s) => {
      const answer = await s.call('listTiers', { credential: s.credential('key') });
      s.expect(answer, 200);
      const data =
        (answer.body as { data?: Array<{ tier?: string; engine?: string; model?: string }> }).data ?? [];
      const tiers = data.map((item) => item.tier).join(',');
      s.check(
        tiers === 'standard,premium,premium_jade',
        `$.data: expected the three tiers in order, got ${tiers}`,
      );
      for (const [index, item] of data.entries()) {
        s.check(Boolean(item.engine && item.model), `$.data[${index}]: no engine or model`);
      }
    },
  );
  await run.case('getBalance', 'reads the balance of the key’s workspace', async (s) => {
    const answer = await s.call('getBalance', { credential: s.credential('key') });
    s.expect(answer, 200);
    state.freeTranscriptionsRemaining = (answer.body as { data: { freeTranscriptionsRemaining: number } })
      .data?.freeTranscriptionsRemaining;
  });
  await run.case('getBalance', 'x-ratelimit-* count the calls down within a window', async (s) => {
    const first = await s.call('getBalance', { credential: s.credential('key') });
    const second = await s.call('getBalance', { credential: s.credential('key') });
    const read = (name: string, answer: typeof first): number => Number(answer.headers[name]);
    const [remaining1, remaining2] = [
      read('x-ratelimit-remaining', first),
      read('x-ratelimit-remaining', second),
    ];
    const [reset1, reset2] = [read('x-ratelimit-reset', first), read('x-ratelimit-reset', second)];
    s.check(
      read('x-ratelimit-limit', second) >= remaining2,
      'x-ratelimit-remaining is above x-ratelimit-limit',
    );
    // Either the second call was counted in the same window, or a new window began between the two.
    s.check(
      remaining2 < remaining1 || reset2 > reset1,
      `x-ratelimit-remaining went ${remaining1} → ${remaining2} (reset ${reset1} → ${reset2})`,
    );
  });
  await run.case('getBalance', 'X-API-KEY works like Authorization: Bearer', async (s) => {
    s.expect(
      await s.call('getBalance', { credential: { kind: 'api-key-header', key: run.options.apiKey } }),
      200,
    );
  });
  await run.case('getUsage', 'reads usage with the default and the widest window', async (s) => {
    s.expect(await s.call('getUsage', { credential: s.credential('key') }), 200);
    const wide = await s.call('getUsage', { credential: s.credential('key'), query: { months: 12 } });
    s.expect(wide, 200);
  });
  await run.case('getProfile', 'reads the profile (403 forbidden for a key without a user)', async (s) => {
    const answer = await s.call('getProfile', { credential: s.credential('key') });
    s.expect(answer, [200, 403]);
    if (answer.status === 403) s.expect(answer, 403, 'forbidden');
  });
}
