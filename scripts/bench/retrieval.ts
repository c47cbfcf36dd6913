// `npm run bench:retrieval`: Cranfield through the real code on DynamoDB Local: the 1,400 documents created with the
// items repository and indexed in stream-sized batches, the 225 queries through the retriever POST /retrieve uses.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../lib/concurrency.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createIndexer, createServiceRetriever } from '../../lib/search/index.ts';
import { cranfieldWrite, evaluate, loadCranfield } from './cranfield.ts';
import { withDynamoDb } from './service.ts';

const [BATCH, TABLE] = [1000, 'cranfield'];
const collection = await loadCranfield();
await withDynamoDb([TABLE], async ({ raw }) => {
  const table = { client: DynamoDBDocumentClient.from(raw), tableName: TABLE };
  const items = createItemRepository(table);
  const indexer = createIndexer({ ...table, items });
  const docOfItem = new Map<number, number>();
  await mapLimit(collection.docs, 4, async (doc) => {
    docOfItem.set((await items.create(cranfieldWrite(doc))).id, doc.id);
  });
  const ids = [...docOfItem.keys()].sort((a, b) => a - b);
  for (let start = 0; start < ids.length; start += BATCH)
    await indexer.reindexItems(ids.slice(start, start + BATCH));
  const retrieve = createServiceRetriever({ ...table, items });
  const scores = await evaluate(async (queryText, depth) => {
    const { results } = await retrieve({ query: queryText, topK: depth, minScore: 0 });
    return results.map((result) => docOfItem.get(result.item.id) ?? 0);
  }, collection);
  console.log(`Cranfield 1400 through DynamoDB Local (real indexing and query code, default tokenizer)
| metric | value |
|---|---|
| nDCG@10 | ${scores.ndcgAt10.toFixed(3)} |
| MAP@100 | ${scores.mapAt100.toFixed(3)} |
Reference (README of the collection): plain BM25 nDCG@10 0.537, MAP@100 0.392.`);
});
