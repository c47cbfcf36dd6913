import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm start`, `npm run token` and `npm run seed` keep their files: `LOCAL_DIR`, by default `.local`. */
export const LOCAL_DIR = process.env.LOCAL_DIR || '.local';

/** What a running `npm start` tells the other scripts: its process and where its API answers. */
export interface RunningStack {
  pid: number;
  baseUrl: string;
}

const RUNNING_FILE = join(LOCAL_DIR, 'stack.json');

/** Written once the stack answers; removed when it stops. */
export function writeRunningStack(stack: RunningStack): void {
  mkdirSync(LOCAL_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(RUNNING_FILE, `${JSON.stringify(stack)}\n`);
}

export function removeRunningStack(): void {
  rmSync(RUNNING_FILE, { force: true });
}

/** The running stack, if its file names a live process; a stack that was killed leaves a file naming a dead one. */
export function readRunningStack(): RunningStack | undefined {
  try {
    const { pid, baseUrl }: Partial<Record<keyof RunningStack, unknown>> = JSON.parse(
      readFileSync(RUNNING_FILE, 'utf8'),
    );
    if (typeof pid !== 'number' || typeof baseUrl !== 'string') return undefined;
    process.kill(pid, 0);
    return { pid, baseUrl };
  } catch {
    return undefined;
  }
}
