import { logger } from './observability.ts';

type Cleanup = () => unknown;

export interface Lifecycle {
  /** Registers a cleanup to run once on shutdown. */
  onShutdown(name: string, run: Cleanup): void;
  /** Runs every cleanup once, last registered first; one that throws or hangs does not stop the rest. */
  shutdown(): Promise<void>;
}

/** A set of shutdown cleanups, each bounded by `timeoutMs`, run at most once however often shutdown is asked. */
export function createLifecycle({ timeoutMs = 500 }: { timeoutMs?: number } = {}): Lifecycle {
  const cleanups: { name: string; run: Cleanup }[] = [];
  const state: { done?: Promise<void> } = {};
  return {
    onShutdown(name, run) {
      cleanups.push({ name, run });
    },
    shutdown() {
      state.done ??= (async () => {
        for (const { name, run } of cleanups.splice(0).reverse()) {
          const deadline = Promise.withResolvers<'timeout'>();
          const timer = setTimeout(() => deadline.resolve('timeout'), timeoutMs);
          const timedOut = deadline.promise;
          try {
            const outcome = await Promise.race([Promise.resolve().then(run), timedOut]);
            if (outcome === 'timeout') logger.warn('cleanup timed out', { cleanup: name, timeoutMs });
          } catch (error) {
            logger.error('cleanup failed', { cleanup: name, error });
          } finally {
            clearTimeout(timer);
          }
        }
      })();
      return state.done;
    },
  };
}

/** The process's lifecycle: cleanups run when Lambda (extensions registered) or the local stack sends SIGTERM. */
export const lifecycle = createLifecycle();

let installed = false;

/** Runs the process's cleanups on SIGTERM, then exits. */
export function installShutdownHook(): void {
  if (installed) return;
  installed = true;
  process.once('SIGTERM', () => {
    void lifecycle.shutdown().finally(() => process.exit(0));
  });
}
