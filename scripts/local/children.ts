import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REAPER = fileURLToPath(new URL('./reaper.ts', import.meta.url));
/** How long a child may take to stop after SIGTERM before its group gets SIGKILL. */
const STOP_GRACE_MS = 10_000;

let reaper: ChildProcess | undefined;

/** Tells the reaper (started on first use, one per process) about a group: `+` to watch it, `-` when it is gone. */
function tellReaper(line: string): void {
  if (!reaper) {
    reaper = spawn(process.execPath, [REAPER], { stdio: ['pipe', 'ignore', 'inherit'], detached: true });
    // Neither keeps this process alive: the pipe closing when it exits is the reaper's cue.
    reaper.unref();
    reaper.stdin?.on('error', () => {});
    (reaper.stdin as unknown as { unref?: () => void }).unref?.();
  }
  reaper.stdin?.write(`${line}\n`);
}

/** A child process running in a process group of its own, which goes when this process goes. */
export interface Child {
  process: ChildProcess;
  /** Resolves when the child has exited. */
  exited: Promise<void>;
  /** SIGTERM to the child's whole group, SIGKILL after a grace period; resolves once the child has exited. */
  stop(): Promise<void>;
}

/** Signals the child's whole group (the child and whatever it started); false when nothing is left to signal. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (!pid) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `child` (spawned with `detached: true`, so it leads a process group) under the reaper's watch. Its group
 * gets SIGTERM from `stop()`, or from the reaper if this process dies first, even by SIGKILL. Being in a group
 * of its own, it does not get the terminal's Ctrl+C: the stack stops its parts in order instead.
 */
export function adopt(child: ChildProcess): Child {
  const pid = child.pid;
  if (pid) tellReaper(`+${pid}`);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  }).then(() => {
    if (pid) tellReaper(`-${pid}`);
  });
  let stopping: Promise<void> | undefined;
  return {
    process: child,
    exited,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        if (!signalGroup(pid, 'SIGTERM')) child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), STOP_GRACE_MS);
        });
        if ((await Promise.race([exited, late])) === 'late') {
          signalGroup(pid, 'SIGKILL');
          await exited;
        }
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** Spawns a command in a process group of its own, adopted by the reaper (see `adopt`). */
export function spawnChild(
  command: string,
  args: readonly string[],
  options: Omit<Parameters<typeof spawn>[2], 'detached'>,
): Child {
  return adopt(spawn(command, args, { ...options, detached: true }));
}
