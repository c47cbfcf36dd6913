// `npm run bench:items-http -- <before URL> <before editor token> <after URL> <after editor token>`: create and list
// p50 over HTTP against two running stacks (`npm start` in each tree, on ports of their own), side by side: blocks of
// BLOCK requests, the two alternating block by block, one request at a time. Each stack is first filled to ITEMS
// items. Creates: POST /items. List: GET /items?limit=100 after a random item (consistent, the cursor from a Link).
import { median, quantile } from './common.ts';

const [beforeUrl, beforeToken, afterUrl, afterToken] = process.argv.slice(2);
if (!beforeUrl || !beforeToken || !afterUrl || !afterToken)
  throw new Error('usage: bench:items-http -- <before URL> <before token> <after URL> <after token>');
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BLOCK = 25;
const body = JSON.stringify({ name: 'Trail Boot', description: 'Waterproof hiking boot', tags: ['outdoor'] });

const stacks = [
  { label: 'before', url: beforeUrl, token: beforeToken },
  { label: 'after', url: afterUrl, token: afterToken },
];
const create = async (s: (typeof stacks)[number]) => {
  const res = await fetch(`${s.url}/items`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body,
  });
  if (res.status !== 201) throw new Error(`${s.label}: create answered ${res.status}`);
  await res.arrayBuffer();
};
/** The cursors of every page of limit 100: a list request starts from one of them. */
async function cursors(url: string): Promise<string[]> {
  const found: string[] = [];
  for (let next: string | undefined = `${url}/items?limit=1`; next; ) {
    const res: Response = await fetch(next);
    await res.arrayBuffer();
    const link = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    next = link ? new URL(link, url).toString() : undefined;
    if (next && found.length < 2 * ITEMS) found.push(next.replace('limit=1', 'limit=100'));
    if (found.length >= ITEMS - 100) break;
  }
  return found;
}
for (const s of stacks)
  for (let i = 0; i < ITEMS; i += 10) await Promise.all(Array.from({ length: 10 }, () => create(s)));
const pages = new Map(await Promise.all(stacks.map(async (s) => [s.label, await cursors(s.url)] as const)));
const times = new Map(stacks.map((s) => [s.label, { create: [] as number[], list: [] as number[] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const s of round % 2 ? [...stacks].reverse() : stacks) {
    const t = times.get(s.label);
    const urls = pages.get(s.label) ?? [];
    if (!t) continue;
    for (let i = 0; i < BLOCK; i++) {
      const begin = performance.now();
      await create(s);
      t.create.push(performance.now() - begin);
    }
    for (let i = 0; i < BLOCK; i++) {
      const url = urls[Math.floor(Math.random() * urls.length)] ?? `${s.url}/items?limit=100`;
      const begin = performance.now();
      const res = await fetch(url);
      const items = (await res.json()) as unknown[];
      t.list.push(performance.now() - begin);
      if (res.status !== 200 || items.length !== 100)
        throw new Error(`${s.label}: a page of ${items.length}`);
    }
  }
}
const base = times.get('before');
console.log('| stack | create p50 (ms) | × | create p90 | list page p50 (ms) | × | list p90 |');
console.log('|---|---|---|---|---|---|---|');
for (const [label, t] of times) {
  const ratio = (a: number[], b: number[] | undefined) => (b ? (median(a) / median(b)).toFixed(2) : '');
  console.log(
    `| ${label} | ${median(t.create).toFixed(1)} | ${ratio(t.create, base?.create)} | ${quantile(t.create, 0.9).toFixed(1)} | ${median(t.list).toFixed(1)} | ${ratio(t.list, base?.list)} | ${quantile(t.list, 0.9).toFixed(1)} |`,
  );
}
console.log(
  `\n${ITEMS} items first, ${ROUNDS} rounds of ${BLOCK} creates and ${BLOCK} list pages per stack.`,
);
