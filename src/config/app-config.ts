import { plainToInstance, Transform } from 'class-transformer';
import { isIP } from 'node:net';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  MinLength,
  ValidateIf,
  ValidationArguments,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  validateSync,
} from 'class-validator';

export const PROCESS_ROLES = ['all', 'api', 'worker'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

export const STORAGE_DRIVERS = ['local', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

export const NODE_ENVIRONMENTS = ['production', 'development', 'test'] as const;
export type NodeEnvironment = (typeof NODE_ENVIRONMENTS)[number];

/** The JWT_SECRET of .env.example: anyone can forge session tokens with it, so only development/test accept it. */
export const JWT_SECRET_PLACEHOLDER = 'change-me-to-a-long-random-secret-of-32-chars-or-more';

@ValidatorConstraint({ name: 'notThePlaceholderSecret' })
class NotThePlaceholderSecret implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const environment = (args.object as AppConfig).NODE_ENV;
    return value !== JWT_SECRET_PLACEHOLDER || environment === 'development' || environment === 'test';
  }

  defaultMessage(): string {
    return 'JWT_SECRET is the .env.example placeholder; set a random secret (only NODE_ENV=development or test may use it)';
  }
}

const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    : value;

export const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
const toFloat = toInt;
const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  if (['true', '1', 'yes'].includes(value.toLowerCase())) return true;
  if (['false', '0', 'no', ''].includes(value.toLowerCase())) return false;
  return value;
};

/** true or false only (also 1/0, yes/no): a switch whose typo must stop the boot, not pick a side. */
const toStrictBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  if (['true', '1', 'yes'].includes(value.trim().toLowerCase())) return true;
  if (['false', '0', 'no'].includes(value.trim().toLowerCase())) return false;
  return value;
};

/** Express `trust proxy`: no proxy, the number of trusted hops, or the trusted proxies' addresses. */
export type TrustProxy = false | number | string[];

const NAMED_PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

const toTrustProxy = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (['', 'false', 'no'].includes(trimmed.toLowerCase())) return false;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  return toList({ value: trimmed });
};

function isAddressOrRange(entry: string): boolean {
  if (NAMED_PROXY_RANGES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

@ValidatorConstraint({ name: 'trustProxySetting' })
class TrustProxySetting implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (value === false) return true;
    if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 10;
    return (
      Array.isArray(value) && value.length > 0 && value.every((entry) => isAddressOrRange(String(entry)))
    );
  }

  defaultMessage(): string {
    return 'TRUST_PROXY must be false, a hop count (0 to 10), or comma-separated IP addresses/CIDRs of the proxies (or loopback, linklocal, uniquelocal); true is refused';
  }
}

/**
 * Every setting of the service, validated once at boot. Nothing else reads process.env.
 * Property names are the environment variable names so that a validation message names the variable.
 */
export class AppConfig {
  @IsIn(PROCESS_ROLES)
  ROLE: ProcessRole = 'all';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/transcription';

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false })
  REDIS_URL = 'redis://127.0.0.1:6379/0';

  /** Prefix of every Redis key (Bull queues, rate-limit counters, events), so instances can share a Redis. */
  @IsString()
  @MinLength(1)
  REDIS_PREFIX = 'stt';

  /** production (the default) | development | test. Only development and test accept the placeholder JWT_SECRET. */
  @IsIn(NODE_ENVIRONMENTS)
  NODE_ENV: NodeEnvironment = 'production';

  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 characters' })
  @Validate(NotThePlaceholderSecret)
  JWT_SECRET: string;

  /** Longest session JWT accepted, `exp` − `iat` in seconds; a longer-lived (or `iat`-less) token is 401. */
  @Transform(toInt)
  @IsInt()
  @Min(60)
  JWT_MAX_LIFETIME_SECONDS = 86_400;

  /** Lifetime of the access JWT a sign-in or refresh issues (also the `stt_session` cookie's Max-Age). */
  @Transform(toInt)
  @IsInt()
  @Min(60)
  ACCESS_TOKEN_TTL_SECONDS = 900;

  /** Lifetime of a refresh token (the `stt_refresh` cookie); every refresh rotates it. */
  @Transform(toInt)
  @IsInt()
  @Min(300)
  REFRESH_TOKEN_TTL_SECONDS = 2_592_000;

  /**
   * A refresh token rotated less than this many seconds ago may be presented again without ending the session:
   * tabs that load at once (a browser restoring its tabs) all refresh with the same cookie. Later, a rotated
   * token is a replay and revokes its family. 0: every second use is a replay.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60)
  REFRESH_REUSE_GRACE_SECONDS = 10;

  /**
   * Marks the session cookies `Secure` (sent over HTTPS only) and names them with the `__Secure-` prefix.
   * Unset: true, except under NODE_ENV=development or test. `false` is an explicit opt-out for plain-HTTP
   * use, which the boot log warns about outside development and test (src/auth/session/session-cookies.ts).
   */
  @IsOptional()
  @Transform(({ value }) => (value === '' ? undefined : toStrictBool({ value })))
  @IsBoolean({ message: 'COOKIE_SECURE must be true or false (or unset)' })
  COOKIE_SECURE?: boolean;

  /** `POST /v1/auth/signup` creates a workspace for anyone; off (404), the operator's CLI creates them. */
  @Transform(toBool)
  @IsBoolean()
  ALLOW_SIGNUP = false;

  /**
   * Failed sign-ins one client (a device that signed in before, else an IP address) may make for one account
   * before each further attempt waits (429 with Retry-After). docs/decisions.md, "Sign-in throttle".
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_CLIENT = 5;

  /** The first wait after LOGIN_MAX_FAILURES_PER_CLIENT failures; it doubles with each further failure. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_BACKOFF_BASE_SECONDS = 30;

  /** The longest wait between two attempts of one client for one account. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_BACKOFF_MAX_SECONDS = 900;

  /**
   * Failed sign-ins per account within LOGIN_FAILURE_WINDOW_SECONDS from clients that have never signed in to
   * it, before such clients get 429 (distributed guessing); devices that signed in before are exempt.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_ACCOUNT = 100;

  /** Failed sign-ins per client IP (any account, devices that signed in before exempt) within the window. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_IP = 100;

  /** The window of the two ceilings above, and how long a client's failures are remembered after its wait. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_FAILURE_WINDOW_SECONDS = 900;

  /** Sign-up attempts per client IP within SIGNUP_WINDOW_SECONDS before 429. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SIGNUP_MAX_PER_IP = 10;

  /** Sign-up attempts per email address (from anywhere) within SIGNUP_WINDOW_SECONDS before 429. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SIGNUP_MAX_PER_EMAIL = 3;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  SIGNUP_WINDOW_SECONDS = 3600;

  /**
   * Origins (`https://app.example`, comma-separated) allowed to call the API from a browser. Empty, the
   * default: no CORS headers at all, so browsers keep other sites' pages from reading any answer.
   */
  @Transform(toList)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { each: true })
  CORS_ORIGINS: string[] = [];

  /**
   * A connection that sends nothing for this long while its request (headers or body) is incomplete is
   * answered 408 `request-timeout` and closed; a steady slow upload keeps it alive however long it takes.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  HTTP_IDLE_TIMEOUT_MS = 30_000;

  /** The whole request head must arrive within this time (Node's headersTimeout; slowloris trickles). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  HTTP_HEADERS_TIMEOUT_MS = 20_000;

  /** Upper bound on receiving one whole request, body included (Node's requestTimeout; 0 = none). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  HTTP_REQUEST_TIMEOUT_MS = 3_600_000;

  @IsString()
  @MinLength(1)
  STORAGE_DIR = './var/storage';

  /** Where uploads live: `local` (STORAGE_DIR) or `s3` (any S3-compatible store, shared across machines). */
  @IsIn(STORAGE_DRIVERS)
  STORAGE_DRIVER: StorageDriver = 'local';

  /** S3 endpoint URL for MinIO and other S3-compatible stores; unset means AWS S3 of S3_REGION. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  S3_ENDPOINT?: string;

  @IsString()
  @MinLength(1)
  S3_REGION = 'us-east-1';

  /** Required with STORAGE_DRIVER=s3; the bucket must exist. */
  @ValidateIf((config: AppConfig) => config.STORAGE_DRIVER === 's3' || config.S3_BUCKET !== undefined)
  @IsString()
  @MinLength(1, { message: 'S3_BUCKET is required when STORAGE_DRIVER=s3' })
  S3_BUCKET?: string;

  /** Static credentials; both or neither (neither: the AWS default chain, e.g. an instance role). */
  @ValidateIf(
    (config: AppConfig) => config.S3_ACCESS_KEY_ID !== undefined || config.S3_SECRET_ACCESS_KEY !== undefined,
  )
  @IsString()
  @MinLength(1, { message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together' })
  S3_ACCESS_KEY_ID?: string;

  @ValidateIf(
    (config: AppConfig) => config.S3_ACCESS_KEY_ID !== undefined || config.S3_SECRET_ACCESS_KEY !== undefined,
  )
  @IsString()
  @MinLength(1, { message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together' })
  S3_SECRET_ACCESS_KEY?: string;

  /** Path-style URLs (endpoint/bucket/key), needed by most self-hosted stores (MinIO, emulators). */
  @Transform(toBool)
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;

  @IsUrl({ require_tld: false, require_protocol: true })
  ERRORS_BASE_URL = 'https://errors.transcription.example/problems';

  /** Lets webhooks reach loopback/private addresses and use http:// (tests, local development only). */
  /** Lets webhooks reach loopback/private addresses and use http:// (tests, local development only). */
  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_TARGETS = false;

  /** Webhook deliveries one worker process runs at once (each may wait up to the 10 s deadline). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  WEBHOOK_DELIVERY_CONCURRENCY = 10;

  /**
   * `audio_url` intake (POST /v1/transcriptions): one deadline for fetching the file (every redirect, the
   * headers and the whole body), and its size limit (at most the 500 MB upload limit; tests set it lower).
   * The address rules are the webhooks' (WEBHOOK_ALLOW_PRIVATE_TARGETS).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  URL_FETCH_TIMEOUT_MS = 300_000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500_000_000)
  URL_FETCH_MAX_BYTES = 500_000_000;

  /**
   * `false` for a team running the service for itself: no 402, nothing is charged (costs and estimates 0,
   * no ledger debits, so no balance.low), free transcriptions are not consumed; usage still counts minutes.
   * The one switch is in TranscriptionBilling.
   */
  @Transform(toStrictBool)
  @IsBoolean({ message: 'BILLING_ENABLED must be true or false' })
  BILLING_ENABLED = true;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  PRICE_STANDARD_EUR_PER_MINUTE = 0.003;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  PRICE_PREMIUM_EUR_PER_MINUTE = 0.0045;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  PRICE_PREMIUM_JADE_EUR_PER_MINUTE = 0.006;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  MINIMUM_BALANCE_EUR = 0.01;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  DEFAULT_FREE_TRANSCRIPTIONS = 3;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  DEFAULT_LOW_BALANCE_THRESHOLD_EUR = 1;

  /** A free transcription covers audio up to this long; a longer file is paid from the balance. */
  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  FREE_TRANSCRIPTION_MAX_MINUTES = 30;

  /**
   * Failed transcriptions are never billed: a workspace whose failed jobs hold this many minutes of audio in
   * the last 24 hours gets 429 `unbilled-processing-limit` for new jobs until older failures age out.
   */
  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  UNBILLED_AUDIO_MINUTES_PER_DAY = 120;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE = 100;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE = 30;

  /**
   * All authenticated calls of one workspace together (every API key and signed-in user), on top of each
   * key's or user's own RATE_LIMIT_AUTHENTICATED_PER_MINUTE: more keys never buy more rate than this.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_WORKSPACE_PER_MINUTE = 300;

  /** Live (not revoked, not expired) API keys a workspace may hold; one more is 422 `api-key-limit`. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  API_KEYS_MAX_PER_WORKSPACE = 50;

  /**
   * Days the request log of API keys (`GET /v1/api-keys/{id}/requests`) keeps a request; the retention purge
   * deletes older entries.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  API_KEY_REQUEST_LOG_DAYS = 30;

  /**
   * Which peers may tell the client address with `X-Forwarded-For` (Express `trust proxy`), for the per-IP
   * limit of unauthenticated calls: `false` (the default: the socket peer is the client, the header is
   * ignored), a hop count (`1`: one load balancer in front), or comma-separated addresses and CIDRs of the
   * balancers (`10.0.0.0/8, 192.0.2.7`; also `loopback`, `linklocal`, `uniquelocal`). `true` (trust any
   * peer) is refused: whoever can reach the service could then pick a fresh budget per request.
   */
  @Transform(toTrustProxy)
  @Validate(TrustProxySetting)
  TRUST_PROXY: TrustProxy = false;

  /**
   * The `retry:` hint of transcription event streams: how long an EventSource waits before it reconnects
   * after a dropped stream. A client that saw a finished job's last frame is answered 204 and stops.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  SSE_RETRY_MS = 3000;

  /**
   * On SIGTERM/SIGINT, how long a process drains before it exits (code 0): an API process answers readiness
   * 503, stops accepting connections and lets requests in flight finish; a worker stops taking jobs and lets
   * its running ones finish, then hands the unfinished ones back to the queue for another worker (uncharged).
   * Keep it below the orchestrator's kill timeout (Kubernetes: terminationGracePeriodSeconds, 30 s).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SHUTDOWN_GRACE_MS = 25_000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  WORKER_CONCURRENCY = 1;

  /**
   * How long a worker's hold on a running job lasts without renewal (renewed every half of it while the job
   * runs). A killed worker's job goes back to the queue once its hold lapses and the next stalled-job check
   * (same period) sees it: within one to two periods. Engines run in child processes, so the worker's event
   * loop renews in time even on a busy machine; every process of a deployment should use the same value.
   */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(300)
  JOB_LOCK_SECONDS = 15;

  /**
   * Fair share of the workers: at most this many of one workspace's open jobs are handed to the worker queue at
   * once (running, or next in line for a worker); the rest wait in PostgreSQL (status `queued`) and are handed
   * over by tier priority, then age, as earlier ones finish. Deployment-wide (counted in PostgreSQL), so every
   * process must have the same value. Below the total worker slots (workers × WORKER_CONCURRENCY) it keeps slots
   * free for other workspaces; at any value another workspace's first job goes ahead of this one's waiting jobs.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MAX_ACTIVE_JOBS_PER_WORKSPACE = 2;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(20)
  JOB_ATTEMPTS = 3;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  JOB_BACKOFF_MS = 5000;

  /** Realtime transcription sessions (WebSocket /v1/realtime) open at once per workspace, across instances. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  REALTIME_MAX_SESSIONS_PER_WORKSPACE = 4;

  /**
   * Realtime sessions one API process serves at once (each decodes on its own thread). Unset: what the cores
   * sustain at a session's measured cost (realtime/recognition/live-decoding.ts: 3 on 2 cores). Over it a new
   * session is refused at open.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  REALTIME_MAX_SESSIONS?: number;

  /** A realtime session is closed (and its transcription completed) after this much audio. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(12 * 3600)
  REALTIME_MAX_SESSION_SECONDS = 3600;

  /** A realtime session that receives no audio for this long is closed. */
  @Transform(toInt)
  @IsInt()
  @Min(500)
  @Max(3_600_000)
  REALTIME_IDLE_TIMEOUT_MS = 30_000;

  /** The largest WebSocket message a realtime session accepts (a base64 audio append is 4/3 of its audio). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024)
  REALTIME_MAX_MESSAGE_BYTES = 1024 * 1024;

  /**
   * How far recognition may fall behind real time (seconds: the time since the session's decoder last caught
   * up, minus the audio it decoded since) before the session is told and closed, keeping what was recognised.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  REALTIME_MAX_LAG_SECONDS = 10;

  /**
   * How much audio a realtime session holds received but not yet decoded (seconds): a client may send faster
   * than real time up to this; an append beyond it is refused, the client told, and the session closed with
   * what was recognised kept.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  REALTIME_MAX_BUFFER_SECONDS = 60;

  /**
   * How long a realtime session's transcription stays claimed without renewal (the serving process renews it
   * every third of this). After a crash, the reconciler fails the session once this has passed.
   */
  @Transform(toInt)
  @IsInt()
  @Min(3)
  @Max(3600)
  REALTIME_SESSION_LEASE_SECONDS = 60;

  /**
   * Origins besides the service's own whose pages may open a realtime session with the dashboard's session
   * cookie (comma-separated, e.g. `https://app.example`). A WebSocket is not subject to CORS: a page of any
   * other origin sending the cookie is refused (403 before the upgrade), so no other site acts as the user.
   */
  @Transform(toList)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { each: true })
  REALTIME_COOKIE_ORIGINS: string[] = [];

  /** Longer audio is refused at upload (422 on `file`) and, if its header understated it, fails while decoding. */
  @Transform(toFloat)
  @IsNumber()
  @Min(0.0001)
  MAX_AUDIO_DURATION_HOURS = 12;

  /**
   * POST /v1/audio/transcriptions (OpenAI-compatible) answers synchronously only for audio up to this long;
   * longer files are refused before a job exists, pointing at the async POST /v1/transcriptions.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  OPENAI_SYNC_MAX_DURATION_SECONDS = 600;

  /**
   * How long POST /v1/audio/transcriptions waits for its job to end before answering 504 with the job's id
   * (the job goes on; the caller fetches it from /v1/transcriptions/{id}). Below the official OpenAI SDKs'
   * 600 s request timeout, so their callers get that answer instead of cutting the request off and retrying.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  OPENAI_SYNC_WAIT_TIMEOUT_SECONDS = 540;

  /**
   * Where `models:pull` installs model files and where tiers look for them (whisper.cpp ggml files and the
   * sherpa-onnx diarization models). Nothing is ever downloaded implicitly.
   */
  @IsString()
  @MinLength(1)
  MODELS_DIR = './var/models';

  /**
   * Base URL of a mirror serving models under the official path layout (`<url>/<origin path>`, e.g.
   * `<url>/ggerganov/whisper.cpp/resolve/<commit>/ggml-base.bin`, the commit as in the catalogue). Unset: each model's official URL.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  MODELS_SOURCE_URL?: string;

  /** JSON file of extra catalogue entries (private models on a mirror); each must pin its checksum. */
  @IsOptional()
  @IsString()
  MODELS_EXTRA_CATALOGUE?: string;

  /** `models:pull` gives up when name lookup + TCP + TLS take longer, so it never hangs without internet. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MODELS_CONNECT_TIMEOUT_MS = 5000;

  /** `models:pull` counts a connection that sends nothing for this long as cut (the partial file is kept). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MODELS_IDLE_TIMEOUT_MS = 30_000;

  /**
   * `models:pull` gives up after this many requests in a row that added no bytes (429, 5xx, refused resumes,
   * cuts before the first byte); a request that adds bytes is retried at once and resets the count.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  MODELS_MAX_ATTEMPTS_WITHOUT_PROGRESS = 5;

  /** Wait before a retry without progress when the server names none; doubles per attempt (at most 60 s). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MODELS_RETRY_DELAY_MS = 1000;

  /** A server's Retry-After (seconds or HTTP date) is honoured up to this many seconds. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  MODELS_RETRY_AFTER_MAX_SECONDS = 120;

  /**
   * Proxies for `models:pull`, read as curl reads them (either spelling; upper case wins): HTTPS_PROXY for
   * https sources (CONNECT tunnel), HTTP_PROXY for http ones, NO_PROXY hosts reached directly. Only model
   * downloads use them; the service's own outgoing calls (webhooks, audio_url) do not.
   */
  @IsOptional()
  @IsString()
  HTTPS_PROXY?: string;

  @IsOptional()
  @IsString()
  https_proxy?: string;

  @IsOptional()
  @IsString()
  HTTP_PROXY?: string;

  @IsOptional()
  @IsString()
  http_proxy?: string;

  @IsOptional()
  @IsString()
  NO_PROXY?: string;

  @IsOptional()
  @IsString()
  no_proxy?: string;

  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  @IsOptional()
  @IsString()
  SERVICE_VERSION?: string;

  /**
   * Bearer token for GET /metrics (Prometheus text). Unset: /metrics answers 404, so nothing about the
   * service's load is public by default. At least 16 characters.
   */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;

  /**
   * Worker-only processes serve GET /metrics (same token) on this port when it is set; API processes use PORT.
   * Unset: a worker exposes no metrics (queue depth is visible from any API process, it is read from Redis).
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * Operator token of the queue dashboard (Bull Board at /admin/queues): `Authorization: Bearer <token>`, or
   * HTTP Basic with the token as password (any user name) so a browser can open it. Unset: every /admin path
   * answers 404. At least 32 characters.
   */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'ADMIN_TOKEN must be at least 32 characters' })
  ADMIN_TOKEN?: string;
}

export class ConfigValidationError extends Error {}

const ENVIRONMENTS = new WeakMap<AppConfig, Readonly<Record<string, string | undefined>>>();

/**
 * The environment `config` was loaded from, for the slices a module validates itself from the same variables
 * (the engine's: src/engine/registry/engine-configuration.ts, which depend on the registered engines).
 */
export function environmentOf(config: AppConfig): Readonly<Record<string, string | undefined>> {
  return ENVIRONMENTS.get(config) ?? {};
}

/** Builds the config from an environment-like record; throws one error naming every bad variable. */
export function loadAppConfig(environment: Record<string, string | undefined>): AppConfig {
  const known = Object.keys(new AppConfig());
  const present = Object.fromEntries(
    Object.entries(environment).filter(([key, value]) => value !== undefined && known.includes(key)),
  );
  const config = plainToInstance(AppConfig, present, { exposeDefaultValues: true });
  const errors = validateSync(config, { skipMissingProperties: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((error) => {
      const messages = Object.values(error.constraints ?? {}).join('; ');
      return `  ${error.property}=${JSON.stringify(environment[error.property] ?? null)}: ${messages}`;
    });
    throw new ConfigValidationError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  ENVIRONMENTS.set(config, { ...environment });
  return config;
}
