import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of this process's children that have not exited (a zombie, exited but not yet reaped, does not count),
 * optionally only those whose command line contains `command`. Linux /proc.
 */
export function liveChildren(command?: string): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const parent = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      if (parent !== process.pid || state === 'Z') continue;
      if (command && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(command)) continue;
      children.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return children;
}

/** Waits (bounded) until `pid` is no longer a live child of this process; true when it is gone. */
export async function childGone(pid: number, deadlineMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (liveChildren().includes(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
