import { openApiDocument } from '../openapi/openapi-contract';
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_CREDENTIALS,
  AUDIT_TARGET_TYPES,
} from './audit-catalogue';

function schema(name: string): Record<string, unknown> {
  const components = openApiDocument().components as { schemas: Record<string, Record<string, unknown>> };
  return components.schemas[name];
}

describe('the audit catalogue and the contract', () => {
  it('openapi.yaml lists exactly the catalogue’s actions, in its order, and documents each one', () => {
    expect(schema('AuditAction').enum).toEqual(AUDIT_ACTIONS);
    const description = String(schema('AuditAction').description);
    for (const action of AUDIT_ACTIONS) expect(description).toContain(`\`${action}\``);
  });

  it('names each action once, recorded or reserved, in the `<what>.<what happened>` form', () => {
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
    for (const action of AUDIT_ACTIONS) expect(action).toMatch(/^[a-z_]+\.[a-z_]+$/);
    const recorded: readonly string[] = AUDIT_ACTION_GROUPS.recorded;
    for (const written of ['member.invited', 'member.joined', 'sso.settings_changed', 'sso.sign_in']) {
      expect(recorded).toContain(written);
    }
    const reserved: readonly string[] = AUDIT_ACTION_GROUPS.reserved;
    expect(reserved).toContain('workspace.ownership_transferred');
  });

  it('openapi.yaml lists exactly the actor types, target types and credentials', () => {
    expect(schema('AuditActorType').enum).toEqual(AUDIT_ACTOR_TYPES);
    expect(schema('AuditTargetType').enum).toEqual(AUDIT_TARGET_TYPES);
    const actor = (
      schema('AuditEvent').properties as Record<string, { properties: Record<string, { enum: unknown[] }> }>
    ).actor;
    expect(actor.properties.credential.enum).toEqual([...AUDIT_CREDENTIALS, null]);
  });
});
