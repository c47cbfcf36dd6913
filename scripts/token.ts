// `npm run token -- --groups editor,admin [--sub ID] [--expires-in SECONDS] [--token-use access|id] [--client-id ID]`

import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadOrCreateIssuer, mintToken } from './local/issuer.ts';
import { LOCAL_DIR } from './local/state.ts';

const { values } = parseArgs({
  options: {
    groups: { type: 'string', default: '' },
    sub: { type: 'string' },
    'expires-in': { type: 'string', default: '3600' },
    'token-use': { type: 'string', default: 'access' },
    'client-id': { type: 'string' },
  },
});

const expiresIn = Number(values['expires-in']);
const tokenUse = values['token-use'];
if (!Number.isInteger(expiresIn)) {
  console.error('--expires-in must be a whole number of seconds (negative gives an expired token)');
  process.exit(2);
}
if (tokenUse !== 'access' && tokenUse !== 'id') {
  console.error('--token-use must be access or id');
  process.exit(2);
}

const issuer = await loadOrCreateIssuer(join(LOCAL_DIR, 'issuer'));
const groups = values.groups
  .split(',')
  .map((group) => group.trim())
  .filter(Boolean);
console.log(
  mintToken(issuer, {
    groups,
    expiresIn,
    tokenUse,
    ...(values.sub ? { sub: values.sub } : {}),
    ...(values['client-id'] ? { clientId: values['client-id'] } : {}),
  }),
);
