// `npm start`: the whole service on this machine (contract §7).

import { join } from 'node:path';
import { ROLES } from '../lib/auth/policy.ts';
import { loadOrCreateIssuer, mintToken } from './local/issuer.ts';
import { freePort, isListening } from './local/ports.ts';
import { loadOrCreateSecret, type Progress, startStack } from './local/stack.ts';
import { LOCAL_DIR, removeRunningStack, writeRunningStack } from './local/state.ts';

const port = Number(process.env.PORT ?? 3000);
const dynamodbPort = Number(process.env.DYNAMODB_PORT ?? 8000);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// A terminal that went away, or a closed pipe, must not crash the stop that follows.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

let stack: Awaited<ReturnType<typeof startStack>> | undefined;
let stopping = false;

/** Stops everything this process started, whichever way it was asked to. */
async function stop(reason: string) {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  if (!stack) {
    // Still starting: the reaper (scripts/local/reaper.ts) stops what was started once this process is gone.
    console.log(`\n${reason}: stopping during start-up.`);
    process.exit(1);
  }
  console.log(`\n${reason}: stopping serverless-offline, the stream consumer and DynamoDB Local…`);
  removeRunningStack();
  await stack.stop();
  console.log(`Stopped in ${seconds(Date.now() - started)}.`);
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
// `npm start` runs this script under `sh -c`, and a SIGTERM to npm reaches only that shell, which exits without
// passing it on. Whatever ends the parent — a signal this process never gets, a closed terminal — it is
// reparented then: stop as if signalled.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop(`parent process ${parent} exited`);
}, 200).unref();

for (const [what, value] of [
  ['PORT', port],
  ['DYNAMODB_PORT', dynamodbPort],
] as const) {
  if (await isListening(value)) {
    console.error(
      `Port ${value} (${what}) is already in use: is another \`npm start\` running? ` +
        `Stop it, or choose another port: ${what}=<port> npm start`,
    );
    process.exit(1);
  }
}

console.log(`Starting the local stack (files in ${LOCAL_DIR}/):`);
const progress: Progress = (step, detail) => {
  const began = Date.now();
  console.log(`  … ${step}: ${detail}`);
  return (outcome) => {
    console.log(`  ✓ ${step}${outcome ? `: ${outcome}` : ''} (${seconds(Date.now() - began)})`);
  };
};

const issuerDone = progress('issuer', `${LOCAL_DIR}/issuer`);
const issuer = await loadOrCreateIssuer(join(LOCAL_DIR, 'issuer'));
const cursorKey = loadOrCreateSecret(join(LOCAL_DIR, 'cursor-key'));
issuerDone(issuer.meta.userPoolId);

try {
  stack = await startStack({
    issuer,
    cursorKey,
    port,
    lambdaPort: await freePort(),
    dynamodbPort,
    dataDir: join(LOCAL_DIR, 'dynamodb'),
    log: process.env.LOG_OFFLINE === '1',
    progress,
  });
} catch (error) {
  console.error(`\nCould not start the local stack: ${(error as Error).message}`);
  process.exit(1);
}
writeRunningStack({ pid: process.pid, baseUrl: `http://localhost:${port}` });

console.log(`\nReady in ${seconds(process.uptime() * 1000)}. Items API: http://localhost:${port}\n`);
console.log('Tokens (valid 12 hours; `npm run token -- --groups editor` mints more):');
for (const role of ROLES) {
  console.log(
    `  ${role.padEnd(6)} ${mintToken(issuer, { groups: [role], sub: `local-${role}`, expiresIn: 12 * 3600 })}`,
  );
}
console.log(
  `\nTry: curl -s http://localhost:${port}/items   (npm run seed loads sample items)\nPress Ctrl+C to stop.`,
);
