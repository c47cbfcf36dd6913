import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { isConditionFailure } from '../../dynamodb/conditions.ts';
import { scanPages } from '../../dynamodb/pages.ts';
import {
  DF_CLASS_ATTRIBUTE,
  dictionaryEntry,
  isDictionaryTerm,
  TAIL_SK,
  TERM_PK_PREFIX,
  termOfPk,
} from '../format/keys.ts';

/** The attributes of a tail's dictionary entry (keys.ts `dictionaryEntry`). */
const ENTRY_ATTRIBUTES = ['wt', 'wr', 'wp', 'wl', DF_CLASS_ATTRIBUTE] as const;

/**
 * `npm run reindex -- --dictionary` (and the end of the full `npm run reindex`): puts every term's dictionary entry on
 * its tail as this version writes it, for an index written by an older one (before issue #20 a tail had no df class,
 * `wf`, so the prefix index had nothing to rank it by) or a tail whose class a removal from a sealed block took away
 * (postings.ts). One Scan of the tails; each whose entry differs from `dictionaryEntry(term, df)` (or that has one it
 * should not: an exact form, a term with no postings) is updated under a condition on its version, so a writer that
 * changed the tail meanwhile, and wrote its entry itself, is never overwritten. Safe beside the writers, and again.
 */
export async function backfillDictionary({
  client,
  tableName,
  concurrency = 8,
  onPage = () => {},
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  concurrency?: number;
  /** Called after each page of the scan with the tails seen and the entries written so far. */
  onPage?: (progress: { tails: number; entries: number }) => void;
}): Promise<{ tails: number; entries: number }> {
  let tails = 0;
  let entries = 0;
  const pages = scanPages(client, {
    TableName: tableName,
    FilterExpression: 'begins_with(pk, :t) AND sk = :tail',
    ExpressionAttributeValues: { ':t': TERM_PK_PREFIX, ':tail': TAIL_SK },
    ProjectionExpression: ['pk', 'v', 'df', ...ENTRY_ATTRIBUTES].join(', '),
    ConsistentRead: true,
  });
  for await (const page of pages) {
    const rows = page.Items ?? [];
    tails += rows.length;
    const written = await mapLimit(rows, concurrency, async (row) => {
      const term = termOfPk(row.pk) ?? '';
      const df = typeof row.df === 'number' ? row.df : 0;
      const wanted: Record<string, unknown> =
        df > 0 && isDictionaryTerm(term) ? dictionaryEntry(term, df) : {};
      if (ENTRY_ATTRIBUTES.every((name) => row[name] === wanted[name])) return false;
      const set = ENTRY_ATTRIBUTES.filter((name) => wanted[name] !== undefined);
      const remove = ENTRY_ATTRIBUTES.filter((name) => wanted[name] === undefined && row[name] !== undefined);
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: row.pk, sk: TAIL_SK },
            UpdateExpression: [
              set.length ? `SET ${set.map((name) => `${name} = :${name}`).join(', ')}` : '',
              remove.length ? `REMOVE ${remove.join(', ')}` : '',
            ]
              .filter(Boolean)
              .join(' '),
            ConditionExpression: 'v = :v',
            ExpressionAttributeValues: {
              ':v': row.v,
              ...Object.fromEntries(set.map((name) => [`:${name}`, wanted[name]])),
            },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    });
    entries += written.filter(Boolean).length;
    onPage({ tails, entries });
  }
  return { tails, entries };
}
