import { constants } from 'node:fs';
import { access } from 'node:fs/promises';

/** English (and `auto`): the languages of an English-only recogniser. */
export const ENGLISH_ONLY: ReadonlySet<string> = new Set(['en']);

/** Rejects naming the part when `file` is missing or unreadable: for readiness checks. */
export async function readable(file: string, what: string): Promise<void> {
  await access(file, constants.R_OK).catch(() => {
    throw new Error(`${what} ${file} is missing or unreadable`);
  });
}
