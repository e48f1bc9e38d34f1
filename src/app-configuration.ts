import { AccountConfig } from './account/account.config';
import { AdminConfig } from './admin/admin.config';
import { AuditConfig } from './audit/audit.config';
import { AuthConfig } from './auth/auth.config';
import { DashboardSessionConfig } from './auth/session/dashboard-session.config';
import { SsoConfig } from './auth/sso/sso.config';
import { BillingConfig } from './billing/billing.config';
import { HttpConfig } from './common/http/http.config';
import { RateLimitConfig } from './common/http/rate-limit.config';
import { ProcessConfig } from './common/lifecycle/process.config';
import { LoggingConfig } from './common/logging/logging.config';
import { ProblemConfig } from './common/problem/problem.config';
import { RedisConfig } from './common/redis/redis.config';
import { ConfigSlice, Configuration, loadConfiguration } from './config/configuration';
import { DatabaseConfig } from './database/database.config';
import { ENGINE_REGISTRY } from './engine/engine-registry';
import { ModelsConfig } from './engine/models/models.config';
import { MetricsConfig } from './metrics/metrics.config';
import { OpenAiCompatConfig } from './openai-compat/openai-compat.config';
import { DeepgramCompatConfig } from './deepgram-compat/deepgram-compat.config';
import { QueuesConfig } from './queues/queues.config';
import { RealtimeConfig } from './realtime/realtime.config';
import { StorageConfig } from './storage/storage.config';
import { TranscriptionsConfig } from './transcriptions/transcriptions.config';
import { OutboundUrlConfig } from './outbound-url/outbound-url.config';
import { WebhooksConfig } from './webhooks/webhooks.config';

/**
 * Every configuration slice of the service. Each module declares its own next to its code; the list lives
 * here, at the root, so that no module imports another's settings to be configured. Nothing else reads
 * process.env: main.ts and cli.ts pass the environment to loadAppConfiguration once, at boot.
 */
export const APP_CONFIG_SLICES: readonly ConfigSlice[] = [
  ProcessConfig,
  HttpConfig,
  DatabaseConfig,
  RedisConfig,
  LoggingConfig,
  ProblemConfig,
  RateLimitConfig,
  AuthConfig,
  DashboardSessionConfig,
  SsoConfig,
  AuditConfig,
  AccountConfig,
  StorageConfig,
  OutboundUrlConfig,
  WebhooksConfig,
  BillingConfig,
  QueuesConfig,
  TranscriptionsConfig,
  RealtimeConfig,
  OpenAiCompatConfig,
  DeepgramCompatConfig,
  ModelsConfig,
  MetricsConfig,
  AdminConfig,
];

/**
 * Validates every slice, with the engine's and those of every registered recogniser and diarizer (listed when
 * this runs, so an engine registered before boot brings its own), against one environment-like record; throws
 * one ConfigValidationError naming every bad variable.
 */
export function loadAppConfiguration(environment: Record<string, string | undefined>): Configuration {
  return loadConfiguration([...APP_CONFIG_SLICES, ...ENGINE_REGISTRY.configSlices()], environment);
}
