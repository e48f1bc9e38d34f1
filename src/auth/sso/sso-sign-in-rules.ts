/**
 * THE rules of where a dashboard sign-in acts, as SQL for the statements that must decide in one snapshot
 * (every request's JWT check, a password sign-in, a workspace switch):
 *
 * 1. A sign-in made through a workspace's single sign-on acts in that workspace only (`sso_sign_ins`), whatever
 *    the user's active workspace is: the workspace's provider vouched for the person there, nowhere else.
 * 2. In a workspace whose SSO is required, a sign-in not made through its SSO (a password, an invitation, a
 *    sign-up, an operator's token) is refused, except an owner's: the audited break-glass path.
 *
 * `signInSql` is the sign-in (refresh-token family): a column or parameter, `NULL` for a password sign-in not
 * yet made or a token of no sign-in.
 */

/**
 * The workspace a sign-in acts in, given `ssoAlias`: `sso_sign_ins` LEFT JOINed on the sign-in and its user
 * (at most one row: the family is its key).
 */
export function actingWorkspaceSql(ssoAlias: string, activeWorkspaceColumn: string): string {
  return `COALESCE(${ssoAlias}.workspace_id, ${activeWorkspaceColumn})`;
}

/** Whether rule 2 refuses the sign-in `signInSql` in `workspaceSql` for a member of role `roleSql`. */
export function ssoRequiredRefusesSql(workspaceSql: string, roleSql: string, signInSql: string): string {
  return `(EXISTS (SELECT 1 FROM sso_connections required
      WHERE required.workspace_id = ${workspaceSql} AND required.sso_required)
    AND NOT EXISTS (SELECT 1 FROM sso_sign_ins via_sso
      WHERE via_sso.family_id = ${signInSql} AND via_sso.workspace_id = ${workspaceSql})
    AND ${roleSql} IS DISTINCT FROM 'owner')`;
}
