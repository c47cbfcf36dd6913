// The seeded synthetic collection, its fixed queries, and a bulk loader that writes exactly the records the repository
// and the indexer write (test/integration/bulk-load.test.ts checks them).
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../lib/concurrency.ts';
import { COUNTER_KEY } from '../../lib/items/keys.ts';
import { toRecord } from '../../lib/items/record.ts';
import type { Item } from '../../lib/items/schema.ts';
import { bulkIndexRecords } from '../../lib/search/index.ts';
import { pause, prng } from './common.ts';

const ONSETS = 'b c d f g h k l m n p r s t v z br st tr'.split(' ');
const VOWELS = 'a e i o u ai ou'.split(' ');
const VOCABULARY_SIZE = 5000;
const pick = (random: () => number, list: readonly string[]) =>
  list[Math.floor(random() * list.length)] ?? '';
/** Pseudo-words, rank 0 the most frequent: distinct, letters only, no stopwords. */
export const vocabulary: string[] = (() => {
  const random = prng(7);
  const words = new Set<string>();
  while (words.size < VOCABULARY_SIZE) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(random, ONSETS) + pick(random, VOWELS);
    words.add(`${word}${random() < 0.5 ? 'n' : 'x'}`);
  }
  return [...words];
})();
// Zipf (s = 1) over the vocabulary: word of rank r drawn with probability ∝ 1 / (r + 1).
const cumulative = vocabulary.map((_, rank) => 1 / (rank + 1));
for (let rank = 1; rank < cumulative.length; rank++)
  cumulative[rank] = (cumulative[rank - 1] ?? 0) + (cumulative[rank] ?? 0);
const zipfWord = (random: () => number): string => {
  const target = random() * (cumulative[cumulative.length - 1] ?? 1);
  let [low, high] = [0, cumulative.length - 1];
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
  const tagCount = 1 + Math.floor(random() * 3);
  const tags = [...new Set(Array.from({ length: tagCount }, () => pick(random, TAGS)))];
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

/** Writes `records` with BatchWriteItem, 25 at a time, sending unprocessed ones again. */
async function batchWrite(client: DynamoDBDocumentClient, tableName: string, records: object[]) {
  for (let start = 0; start < records.length; start += 25) {
    let pending = records.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await pause(Math.min(500, 10 * 2 ** attempt));
      const reply = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (reply.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  }
}

/**
 * Writes items 1 … size into an empty table as the repository and the indexer leave them, created and indexed in id
 * order: the items, the index's records (`bulkIndexRecords`) and the id counter.
 */
export async function bulkLoad(
  client: DynamoDBDocumentClient,
  tableName: string,
  size: number,
  options: { timestamp?: string; concurrency?: number; blockCapacity?: number } = {},
): Promise<{ records: number }> {
  const { timestamp = '2026-01-01T00:00:00.000Z', concurrency = 6, blockCapacity } = options;
  const items = Array.from({ length: size }, (_, i) => syntheticItem(i + 1, timestamp));
  const records = [
    ...items.map(toRecord),
    ...bulkIndexRecords(items, blockCapacity),
    { ...COUNTER_KEY, value: size },
  ];
  const batches = Array.from({ length: Math.ceil(records.length / 200) }, (_, i) =>
    records.slice(i * 200, (i + 1) * 200),
  );
  await mapLimit(batches, concurrency, (batch) => batchWrite(client, tableName, batch));
  return { records: records.length };
}

/** The 20 fixed queries of 1–3 words, each word by its vocabulary rank: common, middle (100–600) and rare (2000+). */
export const benchQueries =
  '0|3|150|2500|4200|1 7|2 300|5 3000|120 450|900 1800|2200 4100|10 600|0 4 9|2 140 2600|30 500 3500|700 1500 4800|6 8 11|250 260 270|15 1600 4900|3 60 2100'
    .split('|')
    .map((ranks) => ranks.replace(/\d+/g, (rank) => vocabulary[Number(rank)] ?? ''));
