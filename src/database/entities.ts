import { User } from '../account/user.entity';
import { Workspace } from '../account/workspace.entity';
import { AuditEvent } from '../audit/audit-event.entity';
import { ApiKey } from '../auth/api-key.entity';
import { ApiKeyNetwork } from '../auth/api-key-network.entity';
import { ApiKeyRequest } from '../auth/api-key-request.entity';
import { RefreshToken } from '../auth/session/refresh-token.entity';
import { LedgerEntry } from '../billing/ledger-entry.entity';
import { RealtimeClientSecret } from '../realtime/client-secrets/realtime-client-secret.entity';
import { IdempotencyRecord } from '../transcriptions/idempotency-record.entity';
import { TranscriptionTombstone } from '../transcriptions/transcription-tombstone.entity';
import { Transcription } from '../transcriptions/transcription.entity';
import { UploadedAudio } from '../transcriptions/uploaded-audio/uploaded-audio.entity';
import { WorkspaceInvitation } from '../auth/members/workspace-invitation.entity';
import { WorkspaceMember } from '../auth/members/workspace-member.entity';
import { SsoConnection } from '../auth/sso/sso-connection.entity';
import { SsoIdentity } from '../auth/sso/sso-identity.entity';
import { SsoSignIn } from '../auth/sso/sso-sign-in.entity';
import { Vocabulary } from '../vocabularies/vocabulary.entity';
import { OutboxEvent } from '../webhooks/outbox-event.entity';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity';
import { WebhookEndpoint } from '../webhooks/webhook-endpoint.entity';

/** Every entity of every module; the migrations must describe exactly these (checked by `migrate:check`). */
export const ENTITIES = [
  Workspace,
  User,
  ApiKey,
  ApiKeyRequest,
  ApiKeyNetwork,
  RefreshToken,
  Transcription,
  TranscriptionTombstone,
  IdempotencyRecord,
  Vocabulary,
  WebhookEndpoint,
  OutboxEvent,
  WebhookDelivery,
  LedgerEntry,
  RealtimeClientSecret,
  AuditEvent,
  WorkspaceMember,
  WorkspaceInvitation,
  SsoConnection,
  SsoIdentity,
  SsoSignIn,
  UploadedAudio,
];
