import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnChild } from './children.ts';

const CONSUMER = fileURLToPath(new URL('./stream-consumer.ts', import.meta.url));

/** Runs the stream consumer (functions/index-items.ts fed from DynamoDB Local's stream) as a child process. */
export function startStreamConsumer(env: Record<string, string>): {
  process: ChildProcess;
  stop(): Promise<void>;
} {
  const child = spawnChild(process.execPath, [CONSUMER], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return { process: child.process, stop: child.stop };
}
