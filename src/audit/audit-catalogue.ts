/**
 * The closed catalogue of audit actions: every act the audit log can record, named `<what>.<what happened>`.
 * An action is in exactly one group; `recorded` ones are written today, `reserved` ones are named now so the
 * catalogue (and the contract's enum, `AuditAction` in openapi.yaml, checked against this list by
 * src/audit/audit-catalogue.spec.ts) is complete before the code that writes them lands.
 */
export const AUDIT_ACTION_GROUPS = {
  recorded: [
    // Dashboard sign-in (src/auth/session).
    'auth.sign_in',
    'auth.sign_in_failed',
    'auth.sign_out',
    'auth.refresh_token_reused',
    // API keys (src/auth).
    'api_key.created',
    'api_key.revoked',
    'api_key.used_from_new_network',
    // Webhook endpoints (src/webhooks).
    'webhook.created',
    'webhook.updated',
    'webhook.secret_rotated',
    'webhook.deleted',
    // Workspace settings and billing (src/account, src/billing).
    'workspace.retention_changed',
    'billing.low_balance_threshold_changed',
    'billing.auto_reload_changed',
    'billing.balance_topped_up',
    // Transcriptions (src/transcriptions).
    'transcription.deleted',
    'transcription.audio_downloaded',
    // The audit log itself (src/audit).
    'audit_log.exported',
    // Members and invitations (src/auth/members).
    'member.invited',
    'member.joined',
    'member.role_changed',
    'member.removed',
    'member.left',
    'invitation.revoked',
    'invitation.resent',
    // Single sign-on (src/auth/sso) and the break-glass password sign-in where it is required.
    'sso.settings_changed',
    'sso.sign_in',
    'sso.sign_in_failed',
    'auth.break_glass_sign_in',
  ],
  /** Named now, written when their code lands (an owner's own transfer, key scope changes, client secrets). */
  reserved: [
    'workspace.ownership_transferred',
    'api_key.scopes_changed',
    // A realtime client secret minted (src/realtime/client-secrets): left for the client-secret changes.
    'realtime.client_secret_created',
  ],
} as const;

export type AuditAction = (typeof AUDIT_ACTION_GROUPS)[keyof typeof AUDIT_ACTION_GROUPS][number];

export const AUDIT_ACTIONS: readonly AuditAction[] = [
  ...AUDIT_ACTION_GROUPS.recorded,
  ...AUDIT_ACTION_GROUPS.reserved,
];

export function isAuditAction(value: unknown): value is AuditAction {
  return typeof value === 'string' && (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** What an event acted on; the target's id is that resource's id (a uuid), or null when there is none. */
export const AUDIT_TARGET_TYPES = [
  'user',
  'session',
  'api_key',
  'webhook',
  'workspace',
  'transcription',
  'realtime_client_secret',
  'audit_log',
  // Reserved with the member and SSO actions.
  'member',
  'invitation',
  'sso_connection',
] as const;

export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * Who acted: a signed-in `user` (with the credential that proves it), an `api_key`, an `operator` (the CLI,
 * which runs with the database's credentials and names no user), or `anonymous`: a caller that proved
 * nothing (a failed sign-in, a replayed refresh token).
 */
export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'operator', 'anonymous'] as const;

export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * How the actor authenticated the act: a dashboard `session` (JWT), an `api_key`, a realtime `client_secret`,
 * a `password` or `refresh_token` (the sign-in routes themselves), the operator's `cli`, or `sso` (a sign-in through
 * single sign-on).
 */
export const AUDIT_CREDENTIALS = [
  'session',
  'api_key',
  'client_secret',
  'password',
  'refresh_token',
  'cli',
  'sso',
] as const;

export type AuditCredential = (typeof AUDIT_CREDENTIALS)[number];
