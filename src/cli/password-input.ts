import { fail } from './cli-output';

/**
 * The password from standard input (a pipe or a redirected file): the first line, without its line end.
 * Not from argv, which other users of the machine can read in the process list.
 */
export async function readPasswordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) fail('pipe the password on standard input, e.g. `printf %s "$PASSWORD" | …`');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  if (password.length === 0) fail('no password on standard input');
  return password;
}
