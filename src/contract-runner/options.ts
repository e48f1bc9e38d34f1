import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openApiDocument, operationIds } from '../openapi/openapi-contract';

export type RunnerMode = 'full' | 'read-only';

export interface RunnerOptions {
  baseUrl: string;
  apiKey: string;
  apiKey2?: string;
  email?: string;
  password?: string;
  mode: RunnerMode;
  /** No transcription at all (read-only mode otherwise makes one, and only with a free transcription left). */
  noJobs: boolean;
  webhookListen?: number;
  webhookPublicUrl?: string;
  seed: number;
  maxExamples: number;
  /** Only these operationIds (cases of other operations are not run; their prerequisites are then missing). */
  operations?: Set<string>;
  junit?: string;
  jobTimeoutSeconds: number;
  verbose: boolean;
}

export const USAGE = `Usage: stt-contract --base-url URL --api-key KEY [options]

Runs the contract of openapi.yaml against a deployment: every operation, positive and negative cases, responses
checked by the same code as the project's e2e tests. Exit code 0 when nothing mismatched, 1 otherwise, 2 on bad
options. Paced by the service's x-ratelimit-* headers: when a window has no call left, the run waits for the next.

  --base-url URL            The service, e.g. http://localhost:3000 (required; or STT_BASE_URL)
  --api-key KEY             An API key of a funded workspace (required; or STT_API_KEY)
  --api-key-2 KEY           A key of another workspace: tenant-isolation cases (skipped without it; or
                            STT_API_KEY_2)
  --email E --password P    A dashboard user of the key's workspace: session operations (skipped without;
                            or STT_EMAIL and STT_PASSWORD)
  Credentials given as options are visible to every user of the machine in the process list (ps): prefer the
  environment variables. An option wins over its variable.
  --mode full|read-only     full (default, staging): everything, incl. settings and API keys, 3 jobs.
                            read-only (production): reads, and only objects the run creates itself; at most one
                            transcription, and only while a free one is left
  --no-jobs                 No transcription at all (job, SSE, export and audio cases are skipped)
  --webhook-listen PORT     Receive webhook deliveries on this port (with --webhook-public-url). Without it,
                            against a service on this machine (localhost, 127.x, ::1), the run listens on
                            127.0.0.1 itself (used when the service accepts private webhook targets)
  --webhook-public-url URL  The URL at which the deployment reaches --webhook-listen
  --seed N                  Seed of the generated requests (printed; the same seed replays a run)
  --max-examples N          Generated requests per operation and kind (default 10)
  --operations a,b          Only these operationIds
  --junit FILE              Also write the results as JUnit XML
  --job-timeout SECONDS     How long to wait for a transcription to end (default 300)
  --verbose                 Print every case, not only failures
  --help                    This text
`;

export class OptionsError extends Error {}

/** Every operationId of `paths` and of the `webhooks` deliveries: what --operations may name. */
function knownOperationIds(): Set<string> {
  const document = openApiDocument();
  const ids = new Set(operationIds());
  for (const item of Object.values(
    (document.webhooks ?? {}) as Record<string, { post?: { operationId?: string } }>,
  )) {
    if (item.post?.operationId) ids.add(item.post.operationId);
  }
  return ids;
}

/** What the runner reads from the environment when its option is not given (credentials stay out of `ps`). */
export type RunnerEnvironment = Partial<
  Record<'STT_BASE_URL' | 'STT_API_KEY' | 'STT_API_KEY_2' | 'STT_EMAIL' | 'STT_PASSWORD', string>
>;

export function parseRunnerOptions(argv: string[], env: RunnerEnvironment): RunnerOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      'api-key-2': { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      mode: { type: 'string', default: 'full' },
      'no-jobs': { type: 'boolean', default: false },
      'webhook-listen': { type: 'string' },
      'webhook-public-url': { type: 'string' },
      seed: { type: 'string' },
      'max-examples': { type: 'string', default: '10' },
      operations: { type: 'string' },
      junit: { type: 'string' },
      'job-timeout': { type: 'string', default: '300' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  const fromEnv = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
  values['base-url'] ??= fromEnv(env.STT_BASE_URL);
  values['api-key'] ??= fromEnv(env.STT_API_KEY);
  values['api-key-2'] ??= fromEnv(env.STT_API_KEY_2);
  values.email ??= fromEnv(env.STT_EMAIL);
  values.password ??= fromEnv(env.STT_PASSWORD);
  const baseUrl = values['base-url'];
  const apiKey = values['api-key'];
  if (!baseUrl || !/^https?:\/\//.test(baseUrl))
    throw new OptionsError('--base-url http(s)://… (or STT_BASE_URL) is required');
  if (!apiKey) throw new OptionsError('--api-key (or STT_API_KEY) is required');
  if (values.mode !== 'full' && values.mode !== 'read-only') {
    throw new OptionsError(`--mode is full or read-only, not ${values.mode}`);
  }
  const operations = values.operations?.split(',').map((id) => id.trim());
  const unknown = operations?.filter((id) => !knownOperationIds().has(id)) ?? [];
  if (unknown.length > 0)
    throw new OptionsError(`--operations: openapi.yaml has no operation ${unknown.join(', ')}`);
  if ((values.email === undefined) !== (values.password === undefined)) {
    throw new OptionsError('--email and --password go together');
  }
  if ((values['webhook-listen'] === undefined) !== (values['webhook-public-url'] === undefined)) {
    throw new OptionsError('--webhook-listen and --webhook-public-url go together');
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey,
    apiKey2: values['api-key-2'],
    email: values.email,
    password: values.password,
    mode: values.mode,
    noJobs: values['no-jobs'],
    webhookListen:
      values['webhook-listen'] === undefined
        ? undefined
        : integer('--webhook-listen', values['webhook-listen'], 0, 65535),
    webhookPublicUrl: values['webhook-public-url'],
    seed: values.seed === undefined ? randomInt(2 ** 31) : integer('--seed', values.seed, 0, 2 ** 31 - 1),
    maxExamples: integer('--max-examples', values['max-examples'], 0, 10_000),
    operations: operations === undefined ? undefined : new Set(operations),
    junit: values.junit,
    jobTimeoutSeconds: integer('--job-timeout', values['job-timeout'], 1, 86_400),
    verbose: values.verbose,
  };
}

function integer(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new OptionsError(`${name} must be an integer in ${min}..${max}, not ${raw}`);
  }
  return value;
}
