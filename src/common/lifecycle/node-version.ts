/**
 * The warning a process logs at start-up when the Node running it is older than package.json's `engines.node`
 * (`>=24`): npm only warns at install time (EBADENGINE), so without it `node dist/main.js` on the shell's
 * older Node would run quietly on an unsupported version. Only the `>=MAJOR[.MINOR[.PATCH]]` form is read (the
 * one package.json uses); any other range gives no warning rather than a wrong one.
 */
export function nodeVersionWarning(running: string, engines: string | undefined): string | null {
  const minimum = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(engines ?? '');
  const actual = /^v?(\d+)\.(\d+)\.(\d+)/.exec(running);
  if (!minimum || !actual) return null;
  const wanted = [Number(minimum[1]), Number(minimum[2] ?? 0), Number(minimum[3] ?? 0)];
  const have = [Number(actual[1]), Number(actual[2]), Number(actual[3])];
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
