// `npm run bench:items-http -- <before URL> <before editor token> <after URL> <after editor token>`: create and list
// p50 over HTTP against two running stacks (`npm start` in each tree, on ports of their own), side by side: blocks of
// BLOCK requests, the two alternating block by block, one request at a time. Each stack is first filled to ITEMS
// items. Creates: POST /items. List: GET /items?limit=100 after a random item (consistent, the cursor from a Link).
import { alternating, envNumber, median, quantile, timed } from './common.ts';

const [beforeUrl, beforeToken, afterUrl, afterToken] = process.argv.slice(2);
if (!beforeUrl || !beforeToken || !afterUrl || !afterToken)
  throw new Error('usage: bench:items-http -- <before URL> <before token> <after URL> <after token>');
const ITEMS = envNumber('BENCH_ITEMS', 1000);
const ROUNDS = envNumber('BENCH_ROUNDS', 10);
const BLOCK = 25;
const body = JSON.stringify({ name: 'Trail Boot', description: 'Waterproof hiking boot', tags: ['outdoor'] });

/** A stack under test: its list pages' URLs, and the times measured on it (ms). */
const stack = (label: string, url: string, token: string) => {
  const pages: string[] = [];
  return { label, url, token, pages, create: [] as number[], list: [] as number[] };
};
const stacks = [stack('before', beforeUrl, beforeToken), stack('after', afterUrl, afterToken)];
type Stack = (typeof stacks)[number];
const create = async (s: Stack) => {
  const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
  const res = await fetch(`${s.url}/items`, { method: 'POST', headers, body });
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
for (const s of stacks) {
  for (let i = 0; i < ITEMS; i += 10) await Promise.all(Array.from({ length: 10 }, () => create(s)));
  s.pages = await cursors(s.url);
}
await alternating(ROUNDS, stacks, async (s) => {
  for (let i = 0; i < BLOCK; i++) s.create.push(await timed(() => create(s)));
  for (let i = 0; i < BLOCK; i++) {
    const url = s.pages[Math.floor(Math.random() * s.pages.length)] ?? `${s.url}/items?limit=100`;
    const begin = performance.now();
    const res = await fetch(url);
    const items = (await res.json()) as unknown[];
    s.list.push(performance.now() - begin);
    if (res.status !== 200 || items.length !== 100) throw new Error(`${s.label}: a page of ${items.length}`);
  }
});
const [base] = stacks;
const ratio = (a: number[], b: number[] | undefined) => (b ? (median(a) / median(b)).toFixed(2) : '');
console.log('| stack | create p50 (ms) | × | create p90 | list page p50 (ms) | × | list p90 |');
console.log('|---|---|---|---|---|---|---|');
for (const s of stacks)
  console.log(
    `| ${s.label} | ${median(s.create).toFixed(1)} | ${ratio(s.create, base?.create)} | ${quantile(s.create, 0.9).toFixed(1)} | ${median(s.list).toFixed(1)} | ${ratio(s.list, base?.list)} | ${quantile(s.list, 0.9).toFixed(1)} |`,
  );
console.log(
  `\n${ITEMS} items first, ${ROUNDS} rounds of ${BLOCK} creates and ${BLOCK} list pages per stack.`,
);
