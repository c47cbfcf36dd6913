import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CONSUMER = fileURLToPath(new URL('./stream-consumer.ts', import.meta.url));

/** Runs the stream consumer (functions/index-items.ts fed from DynamoDB Local's stream) as a child process. */
export function startStreamConsumer(env: Record<string, string>): {
  process: ChildProcess;
  stop(): Promise<void>;
} {
  const child = spawn(process.execPath, [CONSUMER], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
