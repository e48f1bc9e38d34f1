import type { EntityManager } from 'typeorm';

/**
 * The one lock that orders everything done to a user's dashboard sign-ins: the user's row in `users`
 * (docs/decisions.md, "Sign-outs that win every race").
 *
 * - Whatever makes a sign-in live or uses it takes the row **shared** (`FOR SHARE`), in the transaction that
 *   does it: a rotation inserting the successor refresh token, a sign-in inserting the first token of a new
 *   family, a realtime client secret minted by the sign-in being redeemed. Any number of these run at once.
 * - Whatever ends sign-ins takes the row **exclusively** (`FOR NO KEY UPDATE`) before it revokes, in the
 *   transaction that revokes: sign-out and reuse detection (one family), a new password (every family of the
 *   user; the `UPDATE users SET password_hash` takes that same lock). Deleting the user (`DELETE FROM users`,
 *   `user:delete`) takes a stronger row lock and cascades to the tokens: it conflicts alike.
 *
 * So a revocation and a rotation of the same user never overlap: either the rotation commits first, and the
 * revocation, whose UPDATE takes its snapshot after it got the lock, sees and revokes the successor; or the
 * revocation commits first, and the rotation, once it gets the row, finds its token revoked (the conditional
 * UPDATE re-reads the row) and inserts nothing. Every path takes this row first and no other user's, and takes
 * token rows only after it, so no two of them wait on each other in opposite orders. `FOR NO KEY UPDATE`
 * rather than `FOR UPDATE`: foreign-key checks of inserts elsewhere (`FOR KEY SHARE`) do not wait for it.
 */

/**
 * Takes the user's row shared; the user's password hash as now committed, or null when the user no longer
 * exists (deleted meanwhile: nothing of theirs may be created or opened).
 */
export async function lockUserShared(
  manager: EntityManager,
  userId: string,
): Promise<{ passwordHash: string | null } | null> {
  const rows = await manager.query<Array<{ password_hash: string | null }>>(
    'SELECT password_hash FROM users WHERE id = $1 FOR SHARE',
    [userId],
  );
  return rows.length === 0 ? null : { passwordHash: rows[0].password_hash };
}

/** Takes the user's row exclusively, before any sign-in of the user is ended; false when there is no such user. */
export async function lockUserExclusive(manager: EntityManager, userId: string): Promise<boolean> {
  const rows = await manager.query<unknown[]>('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [
    userId,
  ]);
  return rows.length > 0;
}

/**
 * SQL: whether the sign-in (refresh-token family) `familyColumn` of the user `userColumn` is live, i.e. one of
 * its tokens is not revoked: the rule of the access token's `sid` check (src/auth/jwt.strategy.ts), for a
 * statement that must decide in the same snapshot (a client secret's redemption). Asked under the user's row
 * held shared, it cannot change before that transaction ends.
 */
export function signInLiveSql(familyColumn: string, userColumn: string): string {
  return `EXISTS (SELECT 1 FROM refresh_tokens live_token WHERE live_token.family_id = ${familyColumn}
    AND live_token.user_id = ${userColumn} AND live_token.revoked_on IS NULL)`;
}
