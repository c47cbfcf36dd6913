import { connect, createServer } from 'node:net';

/** Asks the OS for a free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `probe` until it resolves true, or rejects after `timeoutMs`. `failed` is asked before every round: an
 * error from it (the process being waited for has exited, say) ends the wait at once.
 */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  { timeoutMs = 60_000, failed }: { timeoutMs?: number; failed?: () => Error | undefined } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const error = failed?.();
    if (error) throw error;
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
}

/** True when something accepts TCP connections on `port` of the loopback interface. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}
