import { type DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, retryableCancellation } from '../../dynamodb/conditions.ts';
import { pageEntry, pageOf, pageSk, termPk } from '../format/keys.ts';

/** What every step of the posting writer works with: the table, the block capacity and how many terms at once. */
export interface TermStore {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Postings per block at most. */
  blockCapacity: number;
  /** Homes written at once. */
  concurrency: number;
  /** Homes written in one transaction at most (home-groups.ts). */
  writesPerTransaction: number;
}

/** What a write of postings calls before it writes. */
export interface Guards {
  /** Before every write; throws to stop the writer (the indexer's lease on its items is running out). */
  fence: () => void;
  /**
   * Before every write that changes a sealed block already there (a rewrite, a split, a delete): the pass's commit
   * then moves the counts' `sealed` (docs/index-format.md), which tells containers the blocks they keep are stale.
   */
  rewrites: () => void;
}

/** One action of a transaction (a Put, Update or Delete), or a write alone. */
export type Action = Record<string, unknown>;

/** Thrown inside the writer when a compare-and-swap lost to another writer: the home is read again and redone. */
export class LostRace extends Error {}

/** A Put of `item`, conditional on its version (`version`), or on its absence when undefined. */
export const put = (
  { tableName }: TermStore,
  item: Record<string, unknown>,
  version: number | undefined,
): Action => ({
  Put: {
    TableName: tableName,
    Item: item,
    ...(version === undefined
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': version } }),
  },
});

/** Directory entries set (a maximum) or removed (undefined), one update a page. */
export const pageUpdates = (
  store: TermStore,
  term: string,
  entries: Map<number, number | undefined>,
): Action[] =>
  [...Map.groupBy(entries, ([end]) => pageOf(end)).values()].map((group) => pageUpdate(store, term, group));

function pageUpdate({ tableName }: TermStore, term: string, group: [number, number | undefined][]): Action {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const set: string[] = [];
  const remove: string[] = [];
  group.forEach(([end, max], i) => {
    names[`#e${i}`] = pageEntry(end);
    if (max === undefined) remove.push(`#e${i}`);
    else {
      values[`:e${i}`] = max;
      set.push(`#e${i} = :e${i}`);
    }
  });
  return {
    Update: {
      TableName: tableName,
      Key: { pk: termPk(term), sk: pageSk(group[0]?.[0] ?? 0) },
      UpdateExpression: [
        set.length ? `SET ${set.join(', ')}` : '',
        remove.length ? `REMOVE ${remove.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' '),
      ExpressionAttributeNames: names,
      ...(set.length ? { ExpressionAttributeValues: values } : {}),
    },
  };
}

/** Sends one write alone or several in a transaction, once `fence` allows; a lost compare-and-swap is a LostRace. */
export async function send({ client }: TermStore, actions: Action[], fence: () => void): Promise<void> {
  fence();
  try {
    const [only] = actions;
    if (actions.length === 1 && only && 'Put' in only)
      await client.send(new PutCommand(only.Put as ConstructorParameters<typeof PutCommand>[0]));
    else await client.send(new TransactWriteCommand({ TransactItems: actions as never[] }));
  } catch (error) {
    if (isConditionFailure(error) || retryableCancellation(error)) throw new LostRace();
    throw error;
  }
}
