// The reindex's progress line on stderr (`npm run reindex`): the CLI's side of lib/search/operations/progress.ts.
import type { Progress } from '../lib/search/operations/progress.ts';

const duration = (ms: number) => {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
};

export function formatProgress({ done, total, rate, leftMs, final }: Progress): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
  const left = final ? 'done' : leftMs === undefined ? 'time left unknown' : `~${duration(leftMs)} left`;
  return `reindex: ${count(done)} of ~${count(Math.max(total, done))} items (${percent}%), ${count(Math.round(rate))} items/s, ${left}`;
}

/** Writes progress lines at most once per `intervalMs` (by `now`), and always the final one. */
export function progressPrinter({
  write,
  now = Date.now,
  intervalMs = 1000,
}: {
  write: (line: string) => void;
  now?: () => number;
  intervalMs?: number;
}): (progress: Progress) => void {
  let last: number | undefined;
  return (progress) => {
    const at = now();
    if (!progress.final && last !== undefined && at - last < intervalMs) return;
    last = at;
    write(formatProgress(progress));
  };
}
