import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './ports.ts';

export interface Offline {
  baseUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// osls, installed under the name `serverless`, so serverless-offline's peer dependency resolves to it.
const SERVERLESS = fileURLToPath(new URL('../../node_modules/serverless/bin/serverless.js', import.meta.url));

/** Runs the API under serverless-offline (stage `local`), waiting until `GET /items` answers. */
export async function startOffline({
  port,
  lambdaPort,
  env,
  log = false,
}: {
  port: number;
  lambdaPort: number;
  env: Record<string, string>;
  log?: boolean;
}): Promise<Offline> {
  const child = spawn(process.execPath, [SERVERLESS, 'offline', 'start', '--stage', 'local'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), LAMBDA_PORT: String(lambdaPort), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
    if (log) process.stderr.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Fail fast when serverless-offline exits during start-up (a configuration error, say).
  const exitedEarly = exited.then(() => {
    throw new Error(`serverless-offline exited during start-up:\n${output}`);
  });
  exitedEarly.catch(() => {});
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    // serverless-offline runs handlers in worker threads of its own process group: stop them all.
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
    }
    await exited;
  };
  try {
    await Promise.race([
      exitedEarly,
      waitFor(
        'serverless-offline',
        async () => {
          const response = await fetch(`${baseUrl}/items?limit=1`);
          return response.status < 500 || (await response.text()).length > 0;
        },
        120_000,
      ),
    ]);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output.slice(-4000)}`);
  }
  return { baseUrl, process: child, stop };
}
