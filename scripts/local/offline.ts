import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnChild } from './children.ts';
import { waitFor } from './ports.ts';

export interface Offline {
  baseUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// osls, installed under the name `serverless`, so serverless-offline's peer dependency resolves to it.
const SERVERLESS = fileURLToPath(new URL('../../node_modules/serverless/bin/serverless.js', import.meta.url));
const GATEWAY_HEADERS = fileURLToPath(new URL('./gateway-headers.ts', import.meta.url));

/**
 * Runs the API under serverless-offline (stage `local`), waiting until `GET /items` answers. It is spawned at
 * once (packaging the functions takes most of its start-up), but probed only after `ready` resolves: the table
 * it serves from has to exist first.
 */
export async function startOffline({
  port,
  lambdaPort,
  env,
  log = false,
  ready = Promise.resolve(),
}: {
  port: number;
  lambdaPort: number;
  env: Record<string, string>;
  log?: boolean;
  ready?: Promise<unknown>;
}): Promise<Offline> {
  // serverless-offline runs handlers in worker threads and esbuild in a child: its group holds them all.
  const child = spawnChild(
    process.execPath,
    ['--import', GATEWAY_HEADERS, SERVERLESS, 'offline', 'start', '--stage', 'local'],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, PORT: String(port), LAMBDA_PORT: String(lambdaPort), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = `${output}${chunk}`.slice(-8000);
    if (log) process.stderr.write(chunk);
  };
  child.process.stdout?.on('data', collect);
  child.process.stderr?.on('data', collect);
  const gone = () => child.process.exitCode !== null || child.process.signalCode !== null;
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await Promise.race([
      ready,
      child.exited.then(() => {
        throw new Error('serverless-offline exited during start-up');
      }),
    ]);
    await waitFor(
      'serverless-offline',
      async () => {
        const response = await fetch(`${baseUrl}/items?limit=1`);
        return response.status < 500 || (await response.text()).length > 0;
      },
      {
        timeoutMs: 120_000,
        failed: () => (gone() ? new Error('serverless-offline exited during start-up') : undefined),
      },
    );
  } catch (error) {
    await child.stop();
    throw new Error(`${(error as Error).message}\n${output.slice(-4000)}`);
  }
  return { baseUrl, process: child.process, stop: child.stop };
}
