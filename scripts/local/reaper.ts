// The local stack's safety net. The process that starts the stack's children (scripts/local/children.ts) starts
// this one first, with a pipe on its stdin, and writes `+<pgid>` when it starts a child in a process group of its
// own and `-<pgid>` once that child is gone. The pipe closes when that process ends, however it ends — SIGKILL
// included, which it cannot catch — and then every group still registered is stopped: SIGTERM, then SIGKILL for
// what is left after the grace period. Node cannot ask the kernel for a signal on its parent's death
// (prctl PR_SET_PDEATHSIG), so a closed pipe is how a child learns it.
import { createInterface } from 'node:readline';

const GRACE_MS = 5_000;
const groups = new Set<number>();

/** Sends `signal` to every process of group `pgid`; false once the group has no process left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const pgid = Number(line.slice(1));
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return;
  if (line.startsWith('+')) groups.add(pgid);
  else if (line.startsWith('-')) groups.delete(pgid);
});
lines.on('close', async () => {
  const left = [...groups].filter((pgid) => signalGroup(pgid, 'SIGTERM'));
  const deadline = Date.now() + GRACE_MS;
  while (Date.now() < deadline && left.some((pgid) => signalGroup(pgid, 0))) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const pgid of left) signalGroup(pgid, 'SIGKILL');
  process.exit(0);
});
