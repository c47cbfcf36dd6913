// A process that initialises the runtime as a Lambda cold start does, then waits for SIGTERM.
import { lifecycle } from '../../lib/lifecycle.ts';
import { getRuntime } from '../../lib/runtime.ts';

getRuntime();
lifecycle.onShutdown('marker', () => process.stdout.write('cleanup ran\n'));
lifecycle.onShutdown('throws', () => {
  throw new Error('a failing cleanup');
});
process.stdout.write('ready\n');
setInterval(() => {}, 1000);
