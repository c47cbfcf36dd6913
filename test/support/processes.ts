import { readdirSync, readFileSync } from 'node:fs';

/** A process as /proc shows it; `started` (clock ticks after boot) tells it from a later one with the same pid. */
export interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  started: string;
  state: string;
  command: string;
}

/** Reads /proc/<pid>: undefined once the process is gone (Linux only, as the local stack is tested here). */
export function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return {
      pid,
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      started: fields[19] ?? '',
      state: fields[0] ?? '',
      command,
    };
  } catch {
    return undefined;
  }
}

/** Every process below `root` (children, their children, …), as it is now. */
export function descendants(root: number): Proc[] {
  const all = readdirSync('/proc')
    .filter((name) => /^[0-9]+$/.test(name))
    .flatMap((name) => readProc(Number(name)) ?? []);
  const found: Proc[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const proc of all) {
      if (parents.has(proc.ppid) && !parents.has(proc.pid)) {
        parents.add(proc.pid);
        found.push(proc);
        grew = true;
      }
    }
  }
  return found;
}

/** True while that very process (same pid and start time) runs; a zombie has stopped running. */
export function stillRunning(proc: Proc): boolean {
  const now = readProc(proc.pid);
  return now !== undefined && now.started === proc.started && now.state !== 'Z';
}

/** True while any process is in group `pgid`. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
