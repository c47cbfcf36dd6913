// The CPU a local stack's parts take: on a 2-core machine the stack's processes (DynamoDB Local, serverless-offline,
// the stream consumer) and a bench's own client compete for the same cores, so a bench that times the stack says
// how much of the machine each part used. Linux only (/proc); elsewhere every figure is 0.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks a second of /proc's CPU times (USER_HZ). */
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
/** A sample this often: a window's share is read between the samples nearest its ends. */
const SAMPLE_MS = 500;

/** What `read` returns, or `fallback` when it throws: no /proc here, or a process gone since the listing. */
function orElse<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/**
 * CPU seconds (user + system) so far of every live process in each process group. The stack's parts each lead a
 * group (scripts/local/children.ts), so a group holds a part and whatever it started (java under its launcher).
 */
function groupCpuSeconds(groups: ReadonlySet<number>): Map<number, number> {
  const seconds = new Map<number, number>();
  const pids = orElse(() => readdirSync('/proc'), []).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const stat = orElse(() => readFileSync(`/proc/${pid}/stat`, 'utf8'), '');
    // After the command's closing parenthesis: state, ppid, pgrp, … utime (12th), stime (13th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const group = Number(fields[2]);
    if (!groups.has(group)) continue;
    const ticks = Number(fields[11]) + Number(fields[12]);
    seconds.set(group, (seconds.get(group) ?? 0) + ticks / TICKS_PER_SECOND);
  }
  return seconds;
}

/**
 * Samples the CPU seconds of each part (a process group's leader pid) and of this process, every SAMPLE_MS, until
 * stopped; `coresUsed(from, to)` is each part's CPU seconds in that window over its wall seconds: 1 is a whole core.
 */
export function sampleCpu<Part extends string>(parts: Record<Part, number | undefined>) {
  type Name = Part | 'bench';
  const names: Name[] = [...(Object.keys(parts) as Part[]), 'bench'];
  const groups = new Set(Object.values<number | undefined>(parts).map((pid) => pid ?? -1));
  const samples: { at: number; seconds: Record<Name, number> }[] = [];
  /** Takes a sample now; its time (epoch ms), a window's exact end for `coresUsed`. */
  const mark = () => {
    const byGroup = groupCpuSeconds(groups);
    const own = process.cpuUsage();
    const secondsOf = (name: Name) =>
      name === 'bench' ? (own.user + own.system) / 1e6 : (byGroup.get(parts[name as Part] ?? -1) ?? 0);
    const at = performance.timeOrigin + performance.now();
    samples.push({
      at,
      seconds: Object.fromEntries(names.map((name) => [name, secondsOf(name)])) as Record<Name, number>,
    });
    return at;
  };
  mark();
  const timer = setInterval(mark, SAMPLE_MS);
  timer.unref();
  /** The sample taken nearest `at`. */
  const nearest = (at: number) =>
    samples.reduce((best, sample) => (Math.abs(sample.at - at) < Math.abs(best.at - at) ? sample : best));
  return {
    stop: () => clearInterval(timer),
    mark,
    /** Cores each part (and `bench`, this process) used between two epoch ms. */
    coresUsed(from: number, to: number): Record<Name, number> {
      const [first, last] = [nearest(from), nearest(to)];
      const wall = (last.at - first.at) / 1000 || 1;
      const used = (name: Name) => (last.seconds[name] - first.seconds[name]) / wall;
      return Object.fromEntries(names.map((name) => [name, used(name)])) as Record<Name, number>;
    },
  };
}
