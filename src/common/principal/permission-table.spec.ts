import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PERMISSIONS,
  ROLE_PERMISSIONS,
  ROLES,
  SCOPE_PERMISSIONS,
  SCOPES,
  permissionTableMarkdown,
  roleManageable,
  rolesWith,
  scopeBeyondRole,
  type Permission,
} from './permission-table';

describe('the permission table', () => {
  it('is what docs/permissions.md shows (regenerate with npm run docs:permissions)', () => {
    const written = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'permissions.md'), 'utf8');
    expect(written).toBe(permissionTableMarkdown());
  });

  it('gives each role everything the role below it has, and owners alone members:owner', () => {
    for (let index = 1; index < ROLES.length; index += 1) {
      const above = new Set(ROLE_PERMISSIONS[ROLES[index - 1]]);
      for (const permission of ROLE_PERMISSIONS[ROLES[index]]) expect(above.has(permission)).toBe(true);
    }
    expect(rolesWith('members:owner')).toEqual(['owner']);
    expect(rolesWith('transcriptions:read')).toEqual([...ROLES]);
    expect(rolesWith('transcriptions:write')).toEqual(['owner', 'admin', 'member']);
  });

  it('matches the issue: viewers read, members upload and manage vocabularies, admins manage keys, webhooks, settings, members', () => {
    const has = (role: (typeof ROLES)[number], permission: Permission): boolean =>
      ROLE_PERMISSIONS[role].includes(permission);
    expect(ROLE_PERMISSIONS.viewer).toEqual(['transcriptions:read', 'account:read']);
    expect(has('member', 'transcriptions:write') && has('member', 'vocabularies')).toBe(true);
    expect(has('member', 'webhooks') || has('member', 'members:manage') || has('member', 'audit:read')).toBe(
      false,
    );
    for (const permission of [
      'keys:manage',
      'webhooks',
      'settings:write',
      'members:manage',
      'audit:read',
    ] as const) {
      expect(has('admin', permission)).toBe(true);
    }
    expect(has('admin', 'members:owner')).toBe(false);
  });

  it('names every permission somewhere, and no scope grants an owner permission', () => {
    const granted = new Set(Object.values(ROLE_PERMISSIONS).flat());
    expect([...granted].sort()).toEqual(Object.keys(PERMISSIONS).sort());
    for (const scope of SCOPES) expect(SCOPE_PERMISSIONS[scope]).not.toContain('members:owner');
  });

  it('keeps a key within its creator: a member cannot give webhooks or admin, an admin can', () => {
    expect(scopeBeyondRole('member', ['transcriptions:read', 'transcriptions:write'])).toBeNull();
    expect(scopeBeyondRole('member', ['webhooks'])).toBe('webhooks');
    expect(scopeBeyondRole('viewer', ['transcriptions:write'])).toBe('transcriptions:write');
    expect(scopeBeyondRole('admin', ['admin'])).toBeNull();
  });

  it('lets only an owner give or take the owner role', () => {
    expect(roleManageable('admin', 'member')).toBe(true);
    expect(roleManageable('admin', 'owner')).toBe(false);
    expect(roleManageable('owner', 'owner')).toBe(true);
  });
});
