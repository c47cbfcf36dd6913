// Deterministic synthetic items for the retrieval benchmark, and a bulk loader that writes exactly the records
// the repository and the indexer write (checked against them by `node scripts/bench/scale.ts --check`).
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { COUNTER_KEY } from '../../lib/items/keys.ts';
import { toRecord } from '../../lib/items/record.ts';
import type { Item } from '../../lib/items/schema.ts';
import { analyze, stored } from '../../lib/search/indexer.ts';
import { dfKey, docKey, STATS_KEY, termPk } from '../../lib/search/keys.ts';
import { postingsOf } from '../../lib/search/postings.ts';

/** mulberry32: a small seeded PRNG, so every run generates the same collection. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'z',
  'br',
  'st',
  'tr',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
const VOCABULARY_SIZE = 5000;
/** Pseudo-words, rank 0 the most frequent: distinct, letters only, no stopwords. */
export const vocabulary: string[] = (() => {
  const random = prng(7);
  const words = new Set<string>();
  while (words.size < VOCABULARY_SIZE) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = '';
    for (let s = 0; s < syllables; s++) {
      word +=
        (ONSETS[Math.floor(random() * ONSETS.length)] ?? '') +
        (VOWELS[Math.floor(random() * VOWELS.length)] ?? '');
    }
    words.add(`${word}${random() < 0.5 ? 'n' : 'x'}`);
  }
  return [...words];
})();
// Zipf (s = 1) over the vocabulary: word of rank r drawn with probability ∝ 1 / (r + 1).
const cumulative = (() => {
  let sum = 0;
  return vocabulary.map((_, rank) => {
    sum += 1 / (rank + 1);
    return sum;
  });
})();
const zipfWord = (random: () => number): string => {
  const target = random() * (cumulative[cumulative.length - 1] ?? 1);
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((cumulative[mid] ?? 0) < target) low = mid + 1;
    else high = mid;
  }
  return vocabulary[low] ?? '';
};
const TAGS = ['outdoor', 'kitchen', 'garden', 'office', 'travel', 'sport', 'kids', 'audio', 'home', 'tools'];

/** Item `id` of the collection: a 2–4 word name, a 30–80 word description, 1–3 tags. Same id, same item. */
export function syntheticItem(id: number, timestamp: string): Item {
  const random = prng(id * 2654435761);
  const words = (count: number) => Array.from({ length: count }, () => zipfWord(random)).join(' ');
  const name = words(2 + Math.floor(random() * 3));
  const description = `${words(30 + Math.floor(random() * 51))}.`;
  const tags = [
    ...new Set(
      Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => TAGS[Math.floor(random() * TAGS.length)] ?? 'home',
      ),
    ),
  ];
  return {
    id,
    name: name.charAt(0).toUpperCase() + name.slice(1),
    description: description.charAt(0).toUpperCase() + description.slice(1),
    tags,
    attributes: { size: Math.floor(random() * 50) },
    createdAt: timestamp,
    updatedAt: timestamp,
    version: 1,
  };
}

/** The item record the repository writes. */
const itemRecord = toRecord;

/** Corpus counters the loader keeps between loads, so the collection can grow in steps. */
export interface CorpusState {
  items: number;
  totalLength: number;
  df: Map<string, number>;
}
export const emptyCorpus = (): CorpusState => ({ items: 0, totalLength: 0, df: new Map() });

async function batchWrite(
  client: DynamoDBDocumentClient,
  tableName: string,
  records: Record<string, unknown>[],
) {
  for (let start = 0; start < records.length; start += 25) {
    let pending = records.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(500, 10 * 2 ** attempt)));
      const reply = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (reply.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  }
}

/**
 * Adds items `state.items + 1 … target` as the repository and the indexer would leave them after a create and
 * its rebuild: the item, its doc record (rev 2), its postings, and then every df, STATS and the id counter.
 */
export async function bulkLoad(
  client: DynamoDBDocumentClient,
  tableName: string,
  state: CorpusState,
  target: number,
  { timestamp = '2026-01-01T00:00:00.000Z', concurrency = 6 } = {},
): Promise<{ records: number }> {
  let next = state.items + 1;
  let records = 0;
  const worker = async () => {
    while (next <= target) {
      const batch: Record<string, unknown>[] = [];
      for (; next <= target && batch.length < 200; next++) {
        const item = syntheticItem(next, timestamp);
        const indexed = analyze(item);
        batch.push(itemRecord(item), { ...docKey(item.id), ...stored(indexed), rev: 2 });
        for (const { term, sk, tf, dl } of postingsOf(item.id, indexed).values()) {
          batch.push({ pk: termPk(term), sk, i: item.id, tf, dl });
          state.df.set(term, (state.df.get(term) ?? 0) + 1);
        }
        state.totalLength += indexed.dl;
      }
      records += batch.length;
      await batchWrite(client, tableName, batch);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  state.items = target;
  const counters = [
    ...[...state.df].map(([term, df]) => ({ ...dfKey(term), df })),
    { ...STATS_KEY, docs: state.items, len: state.totalLength },
    { ...COUNTER_KEY, value: state.items },
  ];
  await batchWrite(client, tableName, counters);
  return { records: records + counters.length };
}
