/**
 * The API's shapes as the dashboard reads them: aliases of the schemas generated from openapi.yaml for the
 * typed client (clients/typescript/src/schema.d.ts, kept equal to the document by `npm run client:check`), so a
 * contract change that breaks a page fails `npm run typecheck` instead of the browser.
 */
import type { components } from '../../../clients/typescript/src/schema';

type Schemas = components['schemas'];

export type TranscriptionSummary = Schemas['Transcription'];
export type TranscriptionDetail = Schemas['TranscriptionDetail'];
export type TranscriptionPage = Schemas['TranscriptionPage'];
export type Vocabulary = Schemas['Vocabulary'];
export type ApiKey = Schemas['ApiKey'];
export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];
export type CreatedInvitation = Schemas['CreatedInvitation'];
export type Role = Schemas['Role'];
export type SsoConnection = Schemas['SsoConnection'];
export type PutSsoConnection = Schemas['PutSsoConnectionRequest'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type ApiKeyRequest = Schemas['ApiKeyRequest'];
export type Webhook = Schemas['WebhookEndpoint'];
export type CreatedWebhook = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookEventName = Schemas['WebhookEventName'];
export type Balance = Schemas['BalanceSnapshot'];
export type Usage = Schemas['Usage'];
export type UsageMonth = Schemas['UsageMonth'];
export type AccountSettings = Schemas['AccountSettings'];
export type Tier = Schemas['Tier'];
export type TierList = Schemas['TierList'];

export const EXPORT_FORMATS = [
  'txt',
  'srt',
  'vtt',
  'json',
  'docx',
] as const satisfies readonly Schemas['ExportFormat'][];
export const MODELS = [
  'standard',
  'premium',
  'premium_jade',
] as const satisfies readonly Schemas['ModelTier'][];

export type AuditEvent = Schemas['AuditEvent'];
export type AuditEventPage = Schemas['AuditEventPage'];
export type AuditAction = Schemas['AuditAction'];
export type AuditActorType = Schemas['AuditActorType'];
export type AuditTargetType = Schemas['AuditTargetType'];

/** Every audit action of the contract, for the Audit page's filter; the check below fails on a missing one. */
export const AUDIT_ACTIONS = [
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.sign_out',
  'auth.refresh_token_reused',
  'api_key.created',
  'api_key.revoked',
  'api_key.used_from_new_network',
  'webhook.created',
  'webhook.updated',
  'webhook.secret_rotated',
  'webhook.deleted',
  'workspace.retention_changed',
  'billing.low_balance_threshold_changed',
  'billing.auto_reload_changed',
  'billing.balance_topped_up',
  'transcription.deleted',
  'transcription.audio_downloaded',
  'audit_log.exported',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'invitation.revoked',
  'invitation.resent',
  'workspace.ownership_transferred',
  'sso.settings_changed',
  'sso.sign_in',
  'sso.sign_in_failed',
  'auth.break_glass_sign_in',
  'api_key.scopes_changed',
  'realtime.client_secret_created',
] as const satisfies readonly AuditAction[];
export const AUDIT_ACTOR_TYPES = [
  'user',
  'api_key',
  'operator',
  'anonymous',
] as const satisfies readonly AuditActorType[];
export const AUDIT_TARGET_TYPES = [
  'user',
  'session',
  'api_key',
  'webhook',
  'workspace',
  'transcription',
  'realtime_client_secret',
  'audit_log',
  'member',
  'invitation',
  'sso_connection',
] as const satisfies readonly AuditTargetType[];

/** Compile-time: each list names every value of its enum (a value added to openapi.yaml fails the type check). */
type Covers<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : never;
export const AUDIT_LISTS_COMPLETE: [
  Covers<AuditAction, (typeof AUDIT_ACTIONS)[number]>,
  Covers<AuditActorType, (typeof AUDIT_ACTOR_TYPES)[number]>,
  Covers<AuditTargetType, (typeof AUDIT_TARGET_TYPES)[number]>,
] = [true, true, true];
