// `npm run bench:retrieval`: Cranfield through the real code. Loads the 1,400 documents into DynamoDB Local
// through the items repository, then indexes them in stream-sized batches (as the stream consumer does), runs the 225
// queries through the retriever that POST /retrieve uses, and prints nDCG@10 and MAP@100 (scoring rules: the
// collection's README).
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../lib/concurrency.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { cranfieldWrite, evaluate, loadCranfield } from './cranfield.ts';
import { withDynamoDb } from './service.ts';

const STREAM_BATCH_SIZE = 1000;
const TABLE = 'cranfield';

const collection = await loadCranfield();
await withDynamoDb([TABLE], async ({ raw }) => {
  const client = DynamoDBDocumentClient.from(raw);
  const items = createItemRepository({ client, tableName: TABLE });
  const indexer = createIndexer({ client, tableName: TABLE, items });

  const started = Date.now();
  const docOfItem = new Map<number, number>();
  await mapLimit(collection.docs, 4, async (doc) => {
    docOfItem.set((await items.create(cranfieldWrite(doc))).id, doc.id);
  });
  const loadSeconds = (Date.now() - started) / 1000;
  // Indexed as the stream consumer does, in batches of the stream's batch size.
  const indexStarted = Date.now();
  const ids = [...docOfItem.keys()].sort((a, b) => a - b);
  for (let start = 0; start < ids.length; start += STREAM_BATCH_SIZE)
    await indexer.reindexItems(ids.slice(start, start + STREAM_BATCH_SIZE));
  const indexSeconds = (Date.now() - indexStarted) / 1000;

  const search = createSearch({ client, tableName: TABLE });
  const retrieve = createRetriever({
    search,
    items,
    dictionary: createDictionary({ client, tableName: TABLE }),
  });
  const queryStarted = Date.now();
  const scores = await evaluate(async (queryText, depth) => {
    const { results } = await retrieve({ query: queryText, topK: depth, minScore: 0 });
    return results.map((result) => docOfItem.get(result.item.id) ?? 0);
  }, collection);
  const perQuery = (Date.now() - queryStarted) / collection.queries.length;
  const count = collection.docs.length;
  console.log(`Cranfield 1400 through DynamoDB Local (real indexing and query code, default tokenizer)
| metric | value |
|---|---|
| nDCG@10 | ${scores.ndcgAt10.toFixed(3)} |
| MAP@100 | ${scores.mapAt100.toFixed(3)} |
| documents created | ${count} in ${loadSeconds.toFixed(1)} s |
| documents indexed (batches of ${STREAM_BATCH_SIZE}) | ${count} in ${indexSeconds.toFixed(1)} s |
| mean time per query (topK 100) | ${perQuery.toFixed(1)} ms |
Reference (README of the collection): plain BM25 nDCG@10 0.537, MAP@100 0.392.`);
});
