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
