import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamodb/conditions.ts';
import { docKey } from '../format/keys.ts';
import { reindexBatch } from '../write/batch.ts';
import { EMPTY, type Indexer, stored } from '../write/indexer.ts';
import type { IndexScan } from './scan.ts';

/**
 * Removes the postings of items that had no doc record when scanned. Each such item gets a doc record that records
 * its stray postings as an unfinished rebuild (`pending`) of an empty index state, written only if the item still
 * has none (a writer that made one meanwhile owns the item); the indexer then rolls that rebuild back under the
 * item's lease, as after any crash, and indexes the item if it exists. So the removal and its df change are the
 * indexer's own, exact beside any other writer. Returns how many postings were handed over.
 */
export async function removeStrays({
  client,
  tableName,
  indexer,
  scanned,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  indexer: Indexer;
  scanned: IndexScan;
}): Promise<number> {
  const byId = Map.groupBy(
    scanned.postings.filter(({ id }) => !scanned.docs.has(id)),
    ({ id }) => id,
  );
  let handed = 0;
  const adopted: number[] = [];
  for (const [id, strays] of byId) {
    // One pending state per length (an item's postings carry the norms it had when each was written:
    // posting-changes.ts `changes`; strays of two versions differ too), each its own norm.
    const pending = [...Map.groupBy(strays, (posting) => posting.dl)].map(([dl, postings]) =>
      stored({
        version: 0,
        dl,
        norm: dl,
        terms: Object.fromEntries(postings.map((p) => [p.term, p.tf])),
        cut: {},
      }),
    );
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...docKey(id), ...stored(EMPTY), rev: 1, pending },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) continue;
      throw error;
    }
    adopted.push(id);
    handed += strays.length;
  }
  const { failed } = await reindexBatch(indexer, adopted);
  if (failed[0]) throw failed[0].error;
  return handed;
}
