import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { isConditionFailure } from '../../dynamodb/conditions.ts';
import { scanPages } from '../../dynamodb/pages.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import { updateIfUnchanged } from '../../dynamodb/transactions.ts';
import { BLOCK_CAPACITY, encodeDirectory, tailDirectoryLimit } from '../format/blocks.ts';
import {
  DF_CLASS_ATTRIBUTE,
  dictionaryEntry,
  directoryEntries,
  directoryQuery,
  endOfPageEntry,
  isDictionaryTerm,
  TAIL_SK,
  TERM_PK_PREFIX,
  termOfPk,
} from '../format/keys.ts';

/** The attributes of a tail's dictionary entry (keys.ts `dictionaryEntry`). */
const ENTRY_ATTRIBUTES = ['wt', 'wr', 'wp', 'wl', DF_CLASS_ATTRIBUTE] as const;

/**
 * `npm run reindex -- --dictionary` (and the end of the full `npm run reindex`): puts every term's dictionary entry on
 * its tail as `dictionaryEntry(term, df)` gives it, where a removal from a sealed block took its df class away
 * (postings.ts) or left the entry of a term with no postings. One Scan of the tails; each whose entry differs (or that
 * has one it should not) is updated under a condition on its version, so a writer that changed the tail meanwhile,
 * and wrote its entry itself, is never overwritten. Safe beside the writers, and again. It also gives a tail of few
 * sealed blocks that lists no directory (its term had more blocks once) its copy (`listDirectory`).
 */
export async function backfillDictionary({
  client,
  tableName,
  concurrency = 8,
  blockCapacity = BLOCK_CAPACITY,
  onPage = () => {},
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  concurrency?: number;
  /** The writers' block capacity, which sets how many blocks a tail lists (blocks.ts `tailDirectoryLimit`). */
  blockCapacity?: number;
  /** Called after each page of the scan with the tails seen and the entries written so far. */
  onPage?: (progress: { tails: number; entries: number }) => void;
}): Promise<{ tails: number; entries: number }> {
  const table: Table = { client, tableName, blockCapacity };
  let tails = 0;
  let entries = 0;
  const pages = scanPages(client, {
    TableName: tableName,
    FilterExpression: 'begins_with(pk, :t) AND sk = :tail',
    ExpressionAttributeValues: { ':t': TERM_PK_PREFIX, ':tail': TAIL_SK },
    ProjectionExpression: ['pk', 'v', 'df', 'lo', 'd', ...ENTRY_ATTRIBUTES].join(', '),
    ConsistentRead: true,
  });
  for await (const page of pages) {
    const rows = page.Items ?? [];
    tails += rows.length;
    const written = await mapLimit(rows, concurrency, (row) => fixTail(table, row));
    entries += written.filter(Boolean).length;
    onPage({ tails, entries });
  }
  return { tails, entries };
}

/** The table a backfill works on, and the writers' block capacity. */
interface Table {
  client: DynamoDBDocumentClient;
  tableName: string;
  blockCapacity: number;
}

/** A tail's directory copy (`listDirectory`), then its entry; whether either was written. */
async function fixTail(table: Table, row: Record<string, unknown>): Promise<boolean> {
  const listed = await listDirectory(table, row);
  return (await writeEntry(table, row)) || listed;
}

/**
 * Puts the tail's dictionary entry as `dictionaryEntry` gives it, if it differs, under the tail's version; whether it
 * wrote (a tail a writer changed meanwhile is the writer's).
 */
async function writeEntry({ client, tableName }: Table, row: Record<string, unknown>): Promise<boolean> {
  const term = termOfPk(row.pk) ?? '';
  const df = typeof row.df === 'number' ? row.df : 0;
  const wanted: Record<string, unknown> = df > 0 && isDictionaryTerm(term) ? dictionaryEntry(term, df) : {};
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
}

/** Conditions that each directory page is as read: every entry it held, unchanged. */
const pagesUnchanged = (tableName: string, pages: readonly Record<string, unknown>[]) =>
  pages.map((page) => {
    const names = Object.keys(page).filter((name) => endOfPageEntry(name) !== undefined);
    return {
      TableName: tableName,
      Key: { pk: page.pk, sk: page.sk },
      ConditionExpression: names.map((_, i) => `#e${i} = :e${i}`).join(' AND ') || 'attribute_exists(pk)',
      ...(names.length
        ? {
            ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#e${i}`, name])),
            ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:e${i}`, page[name]])),
          }
        : {}),
    };
  });

/**
 * Copies a term's directory pages onto its tail (`d`) where the tail has sealed blocks, lists none, and the term has
 * few enough blocks. The copy must be exact: a writer that adds or removes a block moves the tail's version (the
 * update's condition), and one that only raises a block's bound changes its page alone, so each page read is checked
 * unchanged in the same transaction. Returns whether it wrote.
 */
async function listDirectory(
  { client, tableName, blockCapacity }: Table,
  row: Record<string, unknown>,
): Promise<boolean> {
  if (!(typeof row.lo === 'number' && row.lo > 0) || row.d !== undefined) return false;
  const pages = await queryAll(client, directoryQuery(tableName, row.pk, true));
  const listed = directoryEntries(pages);
  if (listed.length === 0 || listed.length > tailDirectoryLimit(blockCapacity)) return false;
  // A copy not written because a writer changed the term meanwhile is the next run's to write.
  return updateIfUnchanged(
    client,
    {
      TableName: tableName,
      Key: { pk: row.pk, sk: TAIL_SK },
      UpdateExpression: 'SET d = :d',
      ConditionExpression: 'v = :v AND attribute_not_exists(d)',
      ExpressionAttributeValues: { ':d': encodeDirectory(listed), ':v': row.v },
    },
    pagesUnchanged(tableName, pages),
  );
}
