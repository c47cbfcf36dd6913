// `npm start`: the whole service on this machine (contract §7).

import { ROLES } from '../lib/auth/policy.ts';
import { loadOrCreateIssuer, mintToken } from './local/issuer.ts';
import { freePort } from './local/ports.ts';
import { loadOrCreateSecret, startStack } from './local/stack.ts';

const port = Number(process.env.PORT ?? 3000);
const dynamodbPort = Number(process.env.DYNAMODB_PORT ?? 8000);

const issuer = await loadOrCreateIssuer('.local/issuer');
const cursorKey = loadOrCreateSecret('.local/cursor-key');
console.log(
  `Starting DynamoDB Local on port ${dynamodbPort} (data in .local/dynamodb) and the API on port ${port}…`,
);

const stack = await startStack({
  issuer,
  cursorKey,
  port,
  lambdaPort: await freePort(),
  dynamodbPort,
  dataDir: '.local/dynamodb',
  log: process.env.LOG_OFFLINE === '1',
}).catch((error: Error) => {
  console.error(`\nCould not start the local stack: ${error.message}`);
  process.exit(1);
});

console.log(`\nItems API: http://localhost:${port}\n`);
console.log('Tokens (valid 12 hours; `npm run token -- --groups editor` mints more):');
for (const role of ROLES) {
  console.log(
    `  ${role.padEnd(6)} ${mintToken(issuer, { groups: [role], sub: `local-${role}`, expiresIn: 12 * 3600 })}`,
  );
}
console.log(`\nTry: curl -s http://localhost:${port}/items\nPress Ctrl+C to stop.`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping serverless-offline and DynamoDB Local…`);
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
