import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { User } from '../../src/account/user.entity';
import { hashPassword } from '../../src/auth/session/password-hasher';
import type { TestApp } from './test-app';

/** Dashboard sign-in helpers shared by the session specs: cookies of an answer, a user who can sign in. */

export function setCookies(response: Response): string[] {
  const header = response.headers['set-cookie'] as unknown;
  return Array.isArray(header) ? (header as string[]) : [];
}

export function cookieNamed(response: Response, name: string): string | undefined {
  return setCookies(response).find((cookie) => cookie.startsWith(`${name}=`));
}

export function cookieValue(response: Response, name: string): string {
  const cookie = cookieNamed(response, name);
  if (!cookie) throw new Error(`no ${name} cookie set`);
  return cookie.slice(name.length + 1).split(';')[0];
}

/** A user with `password`, in a workspace of their own. */
export async function createUserWithPassword(
  t: TestApp,
  password: string,
): Promise<{ email: string; userId: string; workspaceId: string }> {
  const email = `user-${randomUUID()}@example.com`;
  const workspace = await t.createWorkspace({ name: 'Session tests', email });
  await t.app
    .get(DataSource)
    .getRepository(User)
    .update({ id: workspace.userId }, { passwordHash: await hashPassword(password) });
  return { email, userId: workspace.userId, workspaceId: workspace.workspaceId };
}
