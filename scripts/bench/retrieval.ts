// `npm run bench:retrieval`: Cranfield through the real code. Loads the 1,400 documents into DynamoDB Local
// through the items repository, then indexes them in stream-sized batches (as the stream consumer does), runs the 225 queries through the
// retriever that POST /retrieve uses, and prints nDCG@10 and MAP@100 (scoring rules: the collection's README).
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { ensureTable, localClient, startDynamoDbLocal } from '../local/dynamodb.ts';
import { freePort } from '../local/ports.ts';
import { evaluate, loadCranfield } from './cranfield.ts';

const STREAM_BATCH_SIZE = 1000;

const collection = await loadCranfield();
const dynamodb = await startDynamoDbLocal({ port: await freePort() });
try {
  const raw = localClient(dynamodb.endpoint);
  const tableName = `cranfield-${randomUUID()}`;
  await ensureTable(raw, tableName);
  const client = DynamoDBDocumentClient.from(raw);
  const items = createItemRepository({ client, tableName });
  const indexer = createIndexer({ client, tableName, items });

  // name = title, description = text. The contract caps a name at 200 characters (16 titles are longer: cut)
  // and requires one (2 titles are empty: "untitled"); the text starts with the full title anyway.
  const started = Date.now();
  const docOfItem = new Map<number, number>();
  const queue = [...collection.docs];
  const worker = async () => {
    for (let doc = queue.shift(); doc; doc = queue.shift()) {
      const name = doc.title.trim().slice(0, 200).trim() || 'untitled';
      const item = await items.create({
        name,
        description: doc.text.slice(0, 5000),
        tags: [],
        attributes: {},
      });
      docOfItem.set(item.id, doc.id);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  const loadSeconds = (Date.now() - started) / 1000;
  // Indexed as the stream consumer does, in batches of the stream's batch size.
  const indexStarted = Date.now();
  const ids = [...docOfItem.keys()].sort((a, b) => a - b);
  for (let start = 0; start < ids.length; start += STREAM_BATCH_SIZE)
    await indexer.reindexItems(ids.slice(start, start + STREAM_BATCH_SIZE));
  const indexSeconds = (Date.now() - indexStarted) / 1000;

  const retrieve = createRetriever({
    search: createSearch({ client, tableName }),
    items,
    dictionary: createDictionary({ client, tableName }),
  });
  const queryStarted = Date.now();
  const scores = await evaluate(async (queryText, depth) => {
    const { results } = await retrieve({ query: queryText, topK: depth, minScore: 0 });
    return results.map((result) => docOfItem.get(result.item.id) ?? 0);
  }, collection);
  const perQuery = (Date.now() - queryStarted) / collection.queries.length;

  console.log('Cranfield 1400 through DynamoDB Local (real indexing and query code, default tokenizer)');
  console.log(`| metric | value |\n|---|---|`);
  console.log(`| nDCG@10 | ${scores.ndcgAt10.toFixed(3)} |`);
  console.log(`| MAP@100 | ${scores.mapAt100.toFixed(3)} |`);
  console.log(`| documents created | ${collection.docs.length} in ${loadSeconds.toFixed(1)} s |`);
  console.log(
    `| documents indexed (batches of ${STREAM_BATCH_SIZE}) | ${collection.docs.length} in ${indexSeconds.toFixed(1)} s |`,
  );
  console.log(`| mean time per query (topK 100) | ${perQuery.toFixed(1)} ms |`);
  console.log('Reference (README of the collection): plain BM25 nDCG@10 0.537, MAP@100 0.392.');
  raw.destroy();
} finally {
  await dynamodb.stop();
}
