// `npm run bench:retrieval`: Cranfield through the real code on DynamoDB Local: the 1,400 documents created with the
// items repository and indexed in stream-sized batches, the 225 queries through the retriever POST /retrieve uses.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../lib/concurrency.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { cranfieldWrite, evaluate, loadCranfield } from './cranfield.ts';
import { withDynamoDb } from './service.ts';

const [BATCH, TABLE] = [1000, 'cranfield'];
const collection = await loadCranfield();
await withDynamoDb([TABLE], async ({ raw }) => {
  const table = { client: DynamoDBDocumentClient.from(raw), tableName: TABLE };
  const items = createItemRepository(table);
  const indexer = createIndexer({ ...table, items });
  const docOfItem = new Map<number, number>();
  const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
  const started = Date.now();
  await mapLimit(collection.docs, 4, async (doc) => {
    docOfItem.set((await items.create(cranfieldWrite(doc))).id, doc.id);
  });
  const loaded = seconds(started);
  const indexStarted = Date.now();
  const ids = [...docOfItem.keys()].sort((a, b) => a - b);
  for (let start = 0; start < ids.length; start += BATCH)
    await indexer.reindexItems(ids.slice(start, start + BATCH));
  const indexed = seconds(indexStarted);
  const dictionary = createDictionary(table);
  const retrieve = createRetriever({ search: createSearch(table), items, dictionary });
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
| documents created | ${count} in ${loaded} s |
| documents indexed (batches of ${BATCH}) | ${count} in ${indexed} s |
| mean time per query (topK 100) | ${perQuery.toFixed(1)} ms |
Reference (README of the collection): plain BM25 nDCG@10 0.537, MAP@100 0.392.`);
});
