/**
 * Small helpers shared by the service benchmarks: /proc memory readings, percentiles, the machine description,
 * the load average, argument parsing, and a results file per bench (dist-bench/results/<name>.json).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './sandbox';

export interface ProcessMemory {
  /** Resident set size now, in MB (VmRSS). */
  rssMb: number;
  /** Peak resident set size since the process started, in MB (VmHWM). */
  hwmMb: number;
}

/** VmRSS and VmHWM of a process from /proc/<pid>/status, or null when it is gone. */
export function processMemory(pid: number): ProcessMemory | null {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/**
 * Proportional set size in MB (/proc/<pid>/smaps_rollup Pss): resident memory with each shared page divided
 * among the processes that map it, so summing it over processes counts the node binary and shared libraries
 * once (summed RSS counts them once per process). Null when the process is gone.
 */
export function processPssMb(pid: number): number | null {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
  } catch {
    return null;
  }
}

/** Process ids of every descendant of pid (children, grandchildren, ...), from the ppid field of /proc/<n>/stat. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may contain spaces: the fields after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const parent = Number(fields[1]);
      const children = parents.get(parent) ?? [];
      children.push(Number(entry));
      parents.set(parent, children);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of parents.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The command line of a process (for labelling samples), or '' when it is gone. */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Nearest-rank percentile (p in 0..100) of the values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

export function fixed(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits);
}

export interface MachineInfo {
  cpuModel: string;
  cpus: number;
  memoryGb: number;
  node: string;
  kernel: string;
  ffmpeg: string;
  postgres: string;
}

export function machineInfo(): MachineInfo {
  const firstLine = (command: string, args: string[]): string => {
    try {
      return execFileSync(command, args, { encoding: 'utf8' }).split('\n')[0].trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.availableParallelism(),
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    kernel: os.release(),
    ffmpeg: firstLine('ffmpeg', ['-hide_banner', '-version']),
    postgres: firstLine('psql', ['--version']),
  };
}

/** The 1/5/15-minute load averages, e.g. "0.52 / 0.80 / 1.10". */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
}

/**
 * Waits (up to maxWaitMs) until the 1-minute load average falls below the threshold, so the measurement is not
 * taken while other suites hog the two cores; returns the load average at the start of the measurement.
 */
export async function waitForQuietMachine(threshold = 1.5, maxWaitMs = 0): Promise<string> {
  const deadline = Date.now() + maxWaitMs;
  while (os.loadavg()[0] >= threshold && Date.now() < deadline) {
    console.error(`[bench] load average ${loadAverage()} ≥ ${threshold}; waiting`);
    await new Promise((resolve) => setTimeout(resolve, 20_000));
  }
  return loadAverage();
}

export function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

export function numberArgument(name: string, fallback: number): number {
  const value = argument(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`${name} needs a number, got ${value}`);
  return parsed;
}

/** A markdown table from a header row and data rows. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * Prints the report (markdown) to stdout and writes it with the raw figures to dist-bench/results/<name>.json.
 * BENCH_WAIT_QUIET_MS (default 0) is how long the benches wait for a quiet machine before measuring.
 */
export function publish(name: string, markdown: string, figures: Record<string, unknown>): void {
  const directory = path.join(ROOT, 'dist-bench', 'results');
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${name}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        name,
        date: new Date().toISOString(),
        machine: machineInfo(),
        loadAverage: loadAverage(),
        figures,
        markdown,
      },
      null,
      2,
    ),
  );
  console.log(`\n## ${name}\n\n${markdown}\n`);
  console.error(`[bench] results written to ${path.relative(ROOT, file)}`);
}

export function quietWaitMs(): number {
  return Number(process.env.BENCH_WAIT_QUIET_MS ?? '0');
}

/** Exit code handling shared by the bench entry points: 0, or the number main resolves with; 1 on an error. */
export function runMain(main: () => Promise<void | number>): void {
  main().then(
    (code) => {
      process.exitCode = typeof code === 'number' ? code : 0;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
