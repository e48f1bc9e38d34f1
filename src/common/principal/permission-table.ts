/**
 * THE permission table: what each workspace role and each API-key scope may do. Every route names the one
 * permission it needs (`@RequirePermission`, checked by the global AuthenticationGuard and, for WebSocket
 * upgrades, by the realtime gateway); openapi.yaml states the same permission per operation (`x-permission`,
 * checked against the routes by test/e2e/permission-matrix.e2e-spec.ts); docs/permissions.md is generated from
 * this file (`npm run docs:permissions`, checked by src/common/principal/permission-table.spec.ts).
 */

export const PERMISSIONS = {
  'transcriptions:read': 'List, read, follow, search and export transcriptions; download their audio.',
  'transcriptions:write':
    'Upload or stream audio (native, OpenAI-compatible and realtime routes), rename, mint realtime client secrets, delete transcriptions the caller created.',
  'transcriptions:delete-any': "Delete any transcription of the workspace, not only the caller's own.",
  vocabularies: 'Create, read, change and delete custom vocabularies.',
  'account:read': "Read the workspace's profile, balance, usage and settings.",
  'keys:own': 'Create API keys (scoped within the creator’s role), list and revoke the keys one created.',
  'keys:manage': "List and revoke every API key of the workspace and read any key's request log.",
  webhooks: 'Create, change, test, rotate and delete webhook endpoints; read and redeliver their deliveries.',
  'settings:write': "Change the workspace's settings (retention, billing alerts).",
  'members:manage':
    'Invite members, revoke invitations, change roles below owner, remove members below owner.',
  'audit:read': 'Read and export the audit log.',
  'members:owner': 'Make a member owner, demote or remove an owner (ownership transfer).',
  'sso:manage':
    "Read, set and remove the workspace's single sign-on (its identity provider decides who is whom, so only owners).",
} as const;

export type Permission = keyof typeof PERMISSIONS;

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const VIEWER: readonly Permission[] = ['transcriptions:read', 'account:read'];
const MEMBER: readonly Permission[] = [...VIEWER, 'transcriptions:write', 'vocabularies', 'keys:own'];
const ADMIN: readonly Permission[] = [
  ...MEMBER,
  'transcriptions:delete-any',
  'keys:manage',
  'webhooks',
  'settings:write',
  'members:manage',
  'audit:read',
];
const OWNER: readonly Permission[] = [...ADMIN, 'members:owner', 'sso:manage'];

/** Each role's permissions: each role has everything the role below it has. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: OWNER,
  admin: ADMIN,
  member: MEMBER,
  viewer: VIEWER,
};

export const SCOPES = [
  'transcriptions:read',
  'transcriptions:write',
  'vocabularies',
  'webhooks',
  'account:read',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What each API-key scope grants. `admin` is everything an admin may do (the scope of every key made before
 * keys had scopes); no scope grants an owner's own permission, so ownership never rests with a key.
 */
export const SCOPE_PERMISSIONS: Readonly<Record<Scope, readonly Permission[]>> = {
  'transcriptions:read': ['transcriptions:read'],
  'transcriptions:write': ['transcriptions:write'],
  vocabularies: ['vocabularies'],
  webhooks: ['webhooks'],
  'account:read': ['account:read'],
  admin: ADMIN,
};

/** A realtime session opened with a client secret: it streams, nothing else. */
export const CLIENT_SECRET_PERMISSIONS: readonly Permission[] = ['transcriptions:write'];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

export function permissionsOfRole(role: Role): ReadonlySet<Permission> {
  return new Set(ROLE_PERMISSIONS[role]);
}

export function permissionsOfScopes(scopes: readonly Scope[]): ReadonlySet<Permission> {
  return new Set(scopes.flatMap((scope) => SCOPE_PERMISSIONS[scope]));
}

/** The roles that hold a permission, most powerful first (SQL checks of a member's role use this list). */
export function rolesWith(permission: Permission): Role[] {
  return ROLES.filter((role) => ROLE_PERMISSIONS[role].includes(permission));
}

/** The first permission of the scopes that the role does not hold: a key may never hold more than its creator. */
export function scopeBeyondRole(role: Role, scopes: readonly Scope[]): Permission | null {
  const held = permissionsOfRole(role);
  for (const permission of permissionsOfScopes(scopes)) if (!held.has(permission)) return permission;
  return null;
}

/** Whether `actor` may give `target` (or take from a member holding it): only an owner touches owners. */
export function roleManageable(actor: Role, target: Role): boolean {
  return target !== 'owner' || ROLE_PERMISSIONS[actor].includes('members:owner');
}

/** The permission table as Markdown (docs/permissions.md). */
export function permissionTableMarkdown(): string {
  const lines = [
    '# Permissions',
    '',
    'Generated from `src/common/principal/permission-table.ts` by `npm run docs:permissions`; a unit test fails when',
    'this file and the table differ. Each operation of `openapi.yaml` names the permission it needs (`x-permission`).',
    '',
    '## Roles',
    '',
    `| permission | ${ROLES.join(' | ')} | what it allows |`,
    `| --- | ${ROLES.map(() => ':---:').join(' | ')} | --- |`,
    ...(Object.keys(PERMISSIONS) as Permission[]).map(
      (permission) =>
        `| \`${permission}\` | ${ROLES.map((role) => (ROLE_PERMISSIONS[role].includes(permission) ? '✓' : '')).join(' | ')} | ${PERMISSIONS[permission]} |`,
    ),
    '',
    '## API-key scopes',
    '',
    'A key holds one or more scopes; it may be given only scopes whose permissions its creator’s role holds. Keys',
    'made before scopes existed hold `admin`. A realtime client secret holds `transcriptions:write` only.',
    '',
    '| scope | permissions |',
    '| --- | --- |',
    ...SCOPES.map(
      (scope) =>
        `| \`${scope}\` | ${SCOPE_PERMISSIONS[scope].map((permission) => `\`${permission}\``).join(', ')} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
