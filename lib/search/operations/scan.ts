import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { scanPages } from '../../dynamodb/pages.ts';
import { decodeBlock } from '../format/blocks.ts';
import { FORMS_ATTRIBUTE, idOfDocKey, SEALED_PREFIX, termOfPk, termRows } from '../format/keys.ts';
import type { Posting } from '../write/postings.ts';

/**
 * The operations `npm run reindex` runs after it has indexed every item: what a scan of the index shows, and the
 * removal of postings no doc record accounts for. A scan is no snapshot (each record is read at its own moment,
 * while the stream consumer may be writing), so nothing here writes what a scan saw: postings are removed through
 * the indexer, under the item's lease.
 */

const Row = v.object({
  pk: v.string(),
  sk: v.string(),
  p: v.optional(v.instance(Uint8Array)),
  dl: v.optional(v.number()),
  version: v.optional(v.number()),
});

/** What one scan of the index saw: the ids with a doc record, and every posting (sealed or in a tail). */
export interface IndexScan {
  docs: Set<number>;
  postings: Posting[];
}

/**
 * Every record of the table, page by page (keys, `p`, `dl`, `version`), optionally only those whose pk has a prefix;
 * a home record as a row a term (keys.ts `termRows`).
 */
export async function* scan(client: DynamoDBDocumentClient, tableName: string, filter?: string) {
  const pages = scanPages(client, {
    TableName: tableName,
    ProjectionExpression: 'pk, sk, #p, dl, version, df, #f',
    ExpressionAttributeNames: { '#p': 'p', '#f': FORMS_ATTRIBUTE },
    ...(filter
      ? { FilterExpression: 'begins_with(pk, :prefix)', ExpressionAttributeValues: { ':prefix': filter } }
      : {}),
  });
  for await (const page of pages)
    for (const record of page.Items ?? []) for (const row of termRows(record)) yield v.parse(Row, row);
}

/** One scan of the index records. */
export async function scanIndex(client: DynamoDBDocumentClient, tableName: string): Promise<IndexScan> {
  const found: IndexScan = { docs: new Set(), postings: [] };
  for await (const row of scan(client, tableName)) {
    const id = idOfDocKey(row.pk, row.sk);
    const term = termOfPk(row.pk);
    if (id !== undefined) found.docs.add(id);
    else if (term !== undefined && row.sk.startsWith(SEALED_PREFIX) && row.p !== undefined)
      for (const posting of decodeBlock(row.p)) found.postings.push({ term, ...posting });
  }
  return found;
}
