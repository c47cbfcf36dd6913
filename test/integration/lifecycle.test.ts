import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stack } from '../support/stack.ts';

const CHILD = fileURLToPath(new URL('../support/lifecycle-child.ts', import.meta.url));

describe('shutdown hook', () => {
  it('runs the registered cleanups on SIGTERM, even after one throws, and exits 0', async () => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, ...stack.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (String(chunk).includes('ready')) child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, cleaned: output.includes('cleanup ran') }).toStrictEqual({ code: 0, cleaned: true });
  });

  it('fails the cold start naming the variable when the configuration is bad', async () => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, ...stack.env, CURSOR_KEY: 'short' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (chunk) => {
      errors += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(errors).toContain('Invalid configuration: CURSOR_KEY must be at least 32 characters');
  });
});
