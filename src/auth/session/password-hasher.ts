import { hash, verify } from '@node-rs/argon2';

/** The shortest password accepted (sign-up, CLI): length is what resists guessing, not character classes. */
export const MIN_PASSWORD_LENGTH = 12;
/** Longer inputs are refused before hashing: argon2 cost grows with input and nobody types 1,000 characters. */
export const MAX_PASSWORD_LENGTH = 1024;

/** argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane): about 20–40 ms here, per sign-in attempt. */
const ARGON2_OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    return `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  }
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    // A malformed stored hash signs nobody in.
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/** Computes the dummy hash ahead of the first sign-in, so even that one takes no longer for an unknown email. */
export async function prepareDummyHash(): Promise<void> {
  await dummy();
}

function dummy(): Promise<string> {
  dummyHash ??= hashPassword('no account has this password: it only spends time');
  return dummyHash;
}

/**
 * Spends the time of one verification on a hash nobody's password matches, so an unknown email (or a user
 * without a password) takes as long to refuse as a wrong password and response time does not reveal accounts.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(await dummy(), password);
  return false;
}
