// `npm run seed`: loads the sample items into the running local API (through its own validation and indexing).
// Idempotent: an item whose name is already in the collection is left alone, so a second run adds nothing; each
// create also carries an `Idempotency-Key`, so two runs at once cannot both create the same item.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { ItemListSchema } from '../lib/items/schema.ts';
import { loadOrCreateIssuer, mintToken } from './local/issuer.ts';
import { LOCAL_DIR, readRunningStack } from './local/state.ts';

/** Creates in flight at once: enough to overlap the round trips, few enough for a 2-core laptop. */
const CONCURRENCY = 2;

// An explicit API_URL or PORT first, then the `npm start` running from this folder, then the default port.
const baseUrl =
  process.env.API_URL ??
  (process.env.PORT ? `http://localhost:${process.env.PORT}` : undefined) ??
  readRunningStack()?.baseUrl ??
  'http://localhost:3000';

const fail = (message: string): never => {
  console.error(message);
  process.exit(1);
};

type SeedItem = v.InferOutput<typeof SeedItemSchema>;
const SeedItemSchema = v.looseObject({ name: v.string() });
const items = v.parse(
  v.array(SeedItemSchema),
  JSON.parse(await readFile(new URL('./seed-data.json', import.meta.url), 'utf8')),
);

/** The network error's code (ECONNREFUSED…) that fetch keeps as its cause. */
const causeOf = (error: Error) => (error as { cause?: { code?: string } }).cause?.code ?? error.message;

/** A GET against the API; a refused connection means no stack answers there. */
async function get(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (error) {
    return fail(
      `No API answers at ${baseUrl} (${causeOf(error as Error)}). Start the local stack first (npm start), or point the seed at ` +
        'the one that runs: PORT=<its port> npm run seed, or API_URL=<its URL>.',
    );
  }
}

/** Every item name in the collection, following the list's `Link` headers. */
async function existingNames(): Promise<Set<string>> {
  const names = new Set<string>();
  let next: string | undefined = `${baseUrl}/items?limit=100`;
  while (next) {
    const response = await get(next);
    if (response.status !== 200) {
      fail(`GET /items at ${baseUrl} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    for (const item of v.parse(ItemListSchema, await response.json())) names.add(item.name);
    const link = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    next = link ? new URL(link, baseUrl).href : undefined;
  }
  return names;
}

const existing = await existingNames();
const missing = items.filter((item) => !existing.has(item.name));
const token = mintToken(await loadOrCreateIssuer(join(LOCAL_DIR, 'issuer')), {
  groups: ['editor'],
  sub: 'seed',
});

/** Answers that may pass: the service was busy or a retry of the same create is still running. */
const TRANSIENT = new Set([409, 502, 503, 504]);
const ATTEMPTS = 6;

/** Creates one item; a transient answer is retried with the same key, so the item is still created once. */
async function create(item: SeedItem): Promise<void> {
  const body = JSON.stringify(item);
  const key = `seed-${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${baseUrl}/items`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body,
    }).catch((error: Error) => fail(`POST /items at ${baseUrl} failed: ${causeOf(error)}`));
    if (response.status === 201) return;
    if (response.status === 401) {
      fail(
        `The API at ${baseUrl} refused the seed's token (401): it trusts another issuer than ${LOCAL_DIR}/issuer. ` +
          'Run the seed from the folder (and with the LOCAL_DIR) that `npm start` was run with.',
      );
    }
    const text = (await response.text()).slice(0, 300);
    if (!TRANSIENT.has(response.status) || attempt === ATTEMPTS) {
      fail(`POST /items for "${item.name}" answered ${response.status}: ${text}`);
    }
    // 1, 2, 4, 8, 16 s: past the 30 s for which a create that was cut off holds its key.
    await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
  }
}

const queue = [...missing];
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let item = queue.shift(); item; item = queue.shift()) await create(item);
  }),
);
const kept = items.length - missing.length;
console.log(
  `Seeded ${missing.length} items into ${baseUrl}` +
    (kept > 0 ? ` (${kept} of the ${items.length} sample items were already there)` : ''),
);
