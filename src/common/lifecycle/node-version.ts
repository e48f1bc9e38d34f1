/**
 * The warning a process logs at start-up when the Node running it is older than package.json's `engines.node`
 * (`>=24`): npm only warns at install time (EBADENGINE), so without it `node dist/main.js` on the shell's
 * older Node would run quietly on an unsupported version. Only the `>=MAJOR[.MINOR[.PATCH]]` form is read (the
 * one package.json uses); any other range gives no warning rather than a wrong one.
 */
export function nodeVersionWarning(running: string, engines: string | undefined): string | null {
  const range = (engines ?? '').trim();
  if (!range.startsWith('>=')) return null;
  const wanted = versionParts(range.slice(2).trim());
  const have = versionParts(running);
  if (!wanted || !have) return null;
  for (let part = 0; part < 3; part++) {
    if (have[part] > wanted[part]) return null;
    if (have[part] < wanted[part]) {
      return (
        `Node ${running.replace(/^v?/, 'v')} is older than this service supports (package.json engines: node ` +
        `${engines?.trim()}): run it on Node 24 (the quick start installs one: export ` +
        `PATH="$PWD/.tools/node-24/bin:$PATH")`
      );
    }
  }
  return null;
}

/** `v24.9.0`, `24.9` or `24` as three numbers (missing parts 0); null when it is not such a version. */
function versionParts(version: string): number[] | null {
  const parts = version.replace(/^v/, '').split('.');
  if (parts.length > 3 || !parts.every((part) => /^\d+$/.test(part))) return null;
  return [0, 1, 2].map((index) => Number(parts[index] ?? 0));
}
