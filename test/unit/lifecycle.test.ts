import { describe, expect, it } from 'vitest';
import { createLifecycle } from '../../lib/lifecycle.ts';

describe('lifecycle', () => {
  it('runs every cleanup once, last registered first, even when one throws', async () => {
    const lifecycle = createLifecycle();
    const ran: string[] = [];
    lifecycle.onShutdown('a', () => ran.push('a'));
    lifecycle.onShutdown('b', () => {
      ran.push('b');
      throw new Error('b failed');
    });
    lifecycle.onShutdown('c', async () => {
      ran.push('c');
    });
    await Promise.all([lifecycle.shutdown(), lifecycle.shutdown()]);
    await lifecycle.shutdown();
    expect(ran).toStrictEqual(['c', 'b', 'a']);
  });

  it('bounds a cleanup that hangs and still runs the others', async () => {
    const lifecycle = createLifecycle({ timeoutMs: 50 });
    const ran: string[] = [];
    lifecycle.onShutdown('first', () => ran.push('first'));
    lifecycle.onShutdown('hangs', () => new Promise(() => {}));
    const started = Date.now();
    await lifecycle.shutdown();
    expect(ran).toStrictEqual(['first']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
