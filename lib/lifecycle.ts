import { logger } from './logger.ts';

type Cleanup = () => unknown;
const cleanups: { name: string; run: Cleanup }[] = [];
let shuttingDown: Promise<void> | undefined;

/** Registers a cleanup to run once on shutdown (SIGTERM, or the local stack stopping). */
export function onShutdown(name: string, run: Cleanup): void {
  cleanups.push({ name, run });
}

/** Runs every registered cleanup once, last registered first; one that throws or hangs does not stop the rest. */
export function shutdown(timeoutMs = 500): Promise<void> {
  shuttingDown ??= (async () => {
    for (const { name, run } of cleanups.splice(0).reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.warn('cleanup timed out', { cleanup: name, timeoutMs });
          resolve();
        }, timeoutMs);
      });
      try {
        await Promise.race([Promise.resolve().then(run), timedOut]);
      } catch (error) {
        logger.error('cleanup failed', { cleanup: name, error });
      } finally {
        clearTimeout(timer);
      }
    }
  })();
  return shuttingDown;
}

let installed = false;

/** Runs the cleanups when Lambda (or the local runner) sends SIGTERM. */
export function installShutdownHook(): void {
  if (installed) return;
  installed = true;
  process.once('SIGTERM', () => {
    void shutdown().finally(() => process.exit(0));
  });
}
