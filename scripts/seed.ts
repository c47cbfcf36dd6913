// `npm run seed`: loads the sample items into the running local API (through its own validation and indexing).
import { readFile } from 'node:fs/promises';
import { loadOrCreateIssuer, mintToken } from './local/issuer.ts';

const baseUrl = process.env.API_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
const items: unknown[] = JSON.parse(await readFile(new URL('./seed-data.json', import.meta.url), 'utf8'));
const token = mintToken(await loadOrCreateIssuer('.local/issuer'), { groups: ['editor'], sub: 'seed' });

let created = 0;
for (const item of items) {
  const response = await fetch(`${baseUrl}/items`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(item),
  }).catch((error: Error) => {
    console.error(`Cannot reach ${baseUrl} (${error.message}). Start the service first: npm start`);
    process.exit(1);
  });
  if (response.status !== 201) {
    console.error(`POST /items answered ${response.status}: ${await response.text()}`);
    process.exit(1);
  }
  created++;
}
console.log(`Seeded ${created} items into ${baseUrl}`);
