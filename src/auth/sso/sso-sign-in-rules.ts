/**
 * THE rules of where a dashboard sign-in acts, as SQL for the statements that must decide in one snapshot
 * (every request's JWT check, a password sign-in, a workspace switch):
 *
 * 1. A sign-in made through a workspace's single sign-on acts in that workspace only (`sso_sign_ins`), whatever
 *    the user's active workspace is: the workspace's provider vouched for the person there, nowhere else.
 * 2. In a workspace whose SSO is required, a sign-in not made through its SSO (a password, an invitation, a
 *    sign-up, an operator's token) is refused, except an owner's: the audited break-glass path.
 *
 * `:sessionId` is the sign-in (refresh-token family), null for a token of no sign-in.
 */

/** The workspace the sign-in `:sessionId` of the user `userColumn` acts in. */
export function actingWorkspaceSql(userColumn: string, activeWorkspaceColumn: string): string {
  return `COALESCE((SELECT sso.workspace_id FROM sso_sign_ins sso
      WHERE sso.family_id = :sessionId AND sso.user_id = ${userColumn}), ${activeWorkspaceColumn})`;
}

/**
 * Whether rule 2 refuses the sign-in `:sessionId` in `workspaceSql` for a member of role `roleSql` (true:
 * refused). For a password sign-in before it exists, `:sessionId` is null: it is refused unless an owner.
 */
export function ssoRequiredRefusesSql(workspaceSql: string, roleSql: string): string {
  return `(EXISTS (SELECT 1 FROM sso_connections required
      WHERE required.workspace_id = ${workspaceSql} AND required.sso_required)
    AND NOT EXISTS (SELECT 1 FROM sso_sign_ins via_sso
      WHERE via_sso.family_id = :sessionId AND via_sso.workspace_id = ${workspaceSql})
    AND ${roleSql} IS DISTINCT FROM 'owner')`;
}
