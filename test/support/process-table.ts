import { readdirSync, readFileSync } from 'node:fs';

/** One /proc/<pid>/stat line, split after the command name (which may itself hold spaces or parentheses). */
function statFields(pid: number): string[] | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields from the third on: state, ppid, …; utime and stime are fields 14 and 15 (proc(5)).
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function livePids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      const state = statFields(pid)?.[0];
      return state !== undefined && state !== 'Z';
    });
}

/** Running processes whose parent is `parentPid` and whose command line contains `match`. */
export function childProcesses(parentPid: number, match: string): number[] {
  return livePids().filter(
    (pid) => Number(statFields(pid)?.[1]) === parentPid && commandLine(pid).includes(match),
  );
}

/** Every running process below `pid` (children, grandchildren, …). */
export function descendants(pid: number): number[] {
  const parents = new Map(livePids().map((each) => [each, Number(statFields(each)?.[1])]));
  const found: number[] = [];
  const frontier = [pid];
  while (frontier.length > 0) {
    const parent = frontier.pop();
    for (const [child, ppid] of parents) {
      if (ppid === parent && !found.includes(child)) {
        found.push(child);
        frontier.push(child);
      }
    }
  }
  return found;
}

/**
 * CPU time the process has used, user + system, in clock ticks (USER_HZ, 100 per second on Linux); null once
 * it is gone (no /proc entry, or a zombie that can run no more).
 */
export function cpuTicks(pid: number): number | null {
  const fields = statFields(pid);
  if (!fields || fields[0] === 'Z') return null;
  return Number(fields[11]) + Number(fields[12]);
}
