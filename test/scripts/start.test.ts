// `npm start` and `npm run seed` as a user runs them: through npm, on free ports, with their files in a folder of
// their own (LOCAL_DIR), so nothing of the developer's own `.local/` is touched.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, isListening } from '../../scripts/local/ports.ts';
import { descendants, groupAlive, type Proc, readProc, stillRunning } from '../support/processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE_ITEMS = 36;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Polls `check` every 100 ms until it holds or `ms` have passed; its last answer. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

/** The environment a user's shell would give: no PORT or API_URL unless the test sets them. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { PORT: _port, API_URL: _url, DYNAMODB_PORT: _db, ...env } = process.env;
  return { ...env, ...extra };
}

/** `npm run <script>` to the end. */
function npmRun(script: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A user's `npm start`, on free ports; resolves once it prints that it is ready. */
async function npmStart() {
  const port = await freePort();
  const dynamodbPort = await freePort();
  const localDir = mkdtempSync(join(tmpdir(), 'items-start-'));
  const env = userEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamodbPort), LOCAL_DIR: localDir });
  const npm: ChildProcess = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Ready in')) resolve();
    };
    npm.stdout?.on('data', collect);
    npm.stderr?.on('data', collect);
    npm.once('exit', () => reject(new Error(`npm start exited before it was ready:\n${output}`)));
  });
  await ready;
  return { npm, port, dynamodbPort, localDir, env, output: () => output };
}
type Started = Awaited<ReturnType<typeof npmStart>>;

const started: Started[] = [];
afterAll(() => {
  // Whatever a failed test left behind.
  for (const stack of started) {
    for (const proc of descendants(stack.npm.pid ?? 0))
      if (stillRunning(proc)) process.kill(proc.pid, 'SIGKILL');
    stack.npm.kill('SIGKILL');
    rmSync(stack.localDir, { recursive: true, force: true });
  }
});

/**
 * The stack below npm right now, and the process groups its parts lead (they start children of their own:
 * esbuild, worker processes), leaving out the test runner's own group, which npm shares.
 */
function snapshot(npm: ChildProcess) {
  const procs = descendants(npm.pid ?? 0);
  const own = readProc(process.pid)?.pgid;
  const groups = [...new Set(procs.map((proc) => proc.pgid))].filter((pgid) => pgid !== own);
  return { procs, groups };
}

/** What is still there: running processes, live groups and listening ports. */
async function leftOver({ procs, groups }: { procs: Proc[]; groups: number[] }, ports: number[]) {
  const listening = [];
  for (const port of ports) if (await isListening(port)) listening.push(port);
  return {
    processes: procs.filter(stillRunning).map((proc) => `${proc.pid} ${proc.command.slice(0, 120)}`),
    groups: groups.filter(groupAlive),
    ports: listening,
  };
}

/** Waits up to 30 s for the stack's processes, groups and ports to be gone, then says what is left, if any. */
async function expectNothingLeft(before: ReturnType<typeof snapshot>, stack: Started) {
  const ports = [stack.port, stack.dynamodbPort];
  const nothingLeft = { processes: [], groups: [], ports: [] };
  await eventually(
    async () => JSON.stringify(await leftOver(before, ports)) === JSON.stringify(nothingLeft),
    30_000,
  );
  expect(await leftOver(before, ports)).toStrictEqual(nothingLeft);
}

describe('npm run seed', () => {
  it('says that no stack answers, and how to start or find it, when none runs there', async () => {
    const port = await freePort();
    const run = await npmRun('seed', userEnv({ PORT: String(port) }));
    expect({ code: run.code, stdout: run.stdout }).toStrictEqual({ code: 1, stdout: '' });
    expect(run.stderr).toContain(`No API answers at http://localhost:${port} (ECONNREFUSED)`);
    expect(run.stderr).toContain('npm start');
  });
});

describe('npm start, then npm run seed, then SIGTERM to the npm process alone', () => {
  let stack: Started;
  beforeAll(async () => {
    stack = await npmStart();
    started.push(stack);
  }, 240_000);

  it('starts on the given ports, showing each step with its time', async () => {
    for (const step of ['issuer', 'DynamoDB Local', 'table', 'stream consumer', 'API']) {
      expect(stack.output()).toMatch(new RegExp(`✓ ${step}\\b.*\\([0-9]+\\.[0-9] s\\)`));
    }
    expect(await isListening(stack.port)).toBe(true);
    expect(await isListening(stack.dynamodbPort)).toBe(true);
  });

  it('seeds the sample items into the running stack without being told its port, and adds none the second time', async () => {
    // No PORT: the seed finds the stack that `npm start` recorded in LOCAL_DIR.
    const env = userEnv({ LOCAL_DIR: stack.localDir });
    const count = async () => {
      const response = await fetch(`http://127.0.0.1:${stack.port}/items?limit=100`);
      return ((await response.json()) as unknown[]).length;
    };
    const first = await npmRun('seed', env);
    expect(first).toStrictEqual({
      code: 0,
      stdout: `Seeded ${SAMPLE_ITEMS} items into http://localhost:${stack.port}\n`,
      stderr: '',
    });
    expect(await count()).toBe(SAMPLE_ITEMS);
    const second = await npmRun('seed', env);
    expect(second).toStrictEqual({
      code: 0,
      stdout:
        `Seeded 0 items into http://localhost:${stack.port} ` +
        `(${SAMPLE_ITEMS} of the ${SAMPLE_ITEMS} sample items were already there)\n`,
      stderr: '',
    });
    expect(await count()).toBe(SAMPLE_ITEMS);
  }, 120_000);

  it('stops every part and releases every port when only npm gets SIGTERM', async () => {
    const before = snapshot(stack.npm);
    // sh, the start script, the reaper, DynamoDB Local, serverless-offline and the stream consumer (and esbuild).
    expect(before.procs.length).toBeGreaterThanOrEqual(6);
    const npmExited = new Promise((resolve) => stack.npm.once('exit', resolve));
    stack.npm.kill('SIGTERM');
    await npmExited;
    await expectNothingLeft(before, stack);
  }, 60_000);
});

describe('npm start when its start script is killed with SIGKILL', () => {
  it('stops every part it had started and releases every port', async () => {
    const stack = await npmStart();
    started.push(stack);
    const before = snapshot(stack.npm);
    const script = before.procs.find((proc) => proc.command.endsWith('scripts/start.ts'));
    if (!script) throw new Error(`no scripts/start.ts below npm: ${JSON.stringify(before.procs)}`);
    process.kill(script.pid, 'SIGKILL');
    await expectNothingLeft(before, stack);
  }, 240_000);
});
