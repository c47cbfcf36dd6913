import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnChild } from './children.ts';

const CONSUMER = fileURLToPath(new URL('./stream-consumer.ts', import.meta.url));

/**
 * Runs the stream consumer (functions/index-items.ts fed from DynamoDB Local's stream) as a child process; given
 * `metricsFile`, with its metrics on, its standard output (where they go, in EMF) appended to that file.
 */
export function startStreamConsumer(
  env: Record<string, string>,
  metricsFile?: string,
): {
  process: ChildProcess;
  stop(): Promise<void>;
} {
  const output = metricsFile ? openSync(metricsFile, 'a') : 'inherit';
  const child = spawnChild(process.execPath, [CONSUMER], {
    env: { ...process.env, ...env, ...(metricsFile ? { POWERTOOLS_METRICS_DISABLED: 'false' } : {}) },
    stdio: ['ignore', output, 'inherit'],
  });
  if (typeof output === 'number') closeSync(output);
  return { process: child.process, stop: child.stop };
}
