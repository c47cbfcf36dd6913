// The benchmarks' one capacity meter: an SDK middleware on a DynamoDB client that asks every command for
// `ReturnConsumedCapacity: 'TOTAL'` and adds up, in the meter's current tally, what comes back (with the index records
// the replies hold, for bench:scale and bench:options) and what every write costs, by partition key and by item (for
// bench:ingest's hottest keys).
//
// DynamoDB reports consumed capacity per table, never per item, and DynamoDB Local's totals for transactions are not
// AWS's (it answers 2 WCU for a transaction of three small puts, where AWS charges 2 × 3). So every write action is
// costed here by AWS's documented rules, from the item sizes the client sends and the sizes it last wrote to each key
// (the benchmark starts from an empty table, and every write goes through a metered client):
//   Put: ceil(max(old, new size) / 1 KB); Update: ceil(old size / 1 KB), at least 1 (the index's updates are of
//   small counters); Delete: ceil(old size / 1 KB), at least 1; ConditionCheck: 1; inside a transaction each ×2;
// and each action's units go to its own key. That is `wcu`; what DynamoDB Local answered is kept beside it
// (`reportedWcu`), and for single-item writes the two agree. Reads are DynamoDB Local's own figures, which follow
// AWS's rule. Calls that fail (a cancelled transaction, a refused condition) answer no capacity: counted, not costed.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { decodeBlock } from '../../lib/search/format/blocks.ts';
import { endOfPageEntry, PAGE_PREFIX, SEALED_PREFIX, TAIL_SK } from '../../lib/search/format/keys.ts';
import { tableDefinition } from '../local/dynamodb.ts';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

type AttributeValue = Record<string, unknown>;
type AttributeMap = Record<string, AttributeValue>;

/** Bytes of a marshalled attribute value as DynamoDB sizes it (strings UTF-8, numbers ~1 byte a 2 digits). */
function valueBytes(value: AttributeValue): number {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
      return Buffer.byteLength(String(inner));
    case 'N':
      return Math.ceil(String(inner).replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
    case 'B':
      return (inner as Uint8Array).length;
    case 'SS':
      return (inner as string[]).reduce((sum, s) => sum + Buffer.byteLength(s), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, n) => sum + Math.ceil(n.length / 2) + 1, 0);
    case 'L':
      return 3 + (inner as AttributeValue[]).reduce((sum, v) => sum + 1 + valueBytes(v), 0);
    case 'M':
      return 3 + itemBytes(inner as AttributeMap);
    default:
      return type === 'BOOL' || type === 'NULL' ? 1 : 0;
  }
}

/** Bytes of a marshalled item: attribute names plus values. */
export function itemBytes(item: AttributeMap): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value),
    0,
  );
}

/** Bytes of an item as written (plain values, as the document client takes them). */
export const recordBytes = (record: Record<string, unknown>): number =>
  itemBytes(marshall(record, { removeUndefinedValues: true }) as unknown as AttributeMap);

/** A key attribute's text: marshalled (`{ S }`) in a command's input, plain in its reply. */
const text = (value: unknown): string =>
  String(typeof value === 'object' && value !== null ? ((value as AttributeValue).S ?? '?') : (value ?? '?'));
const keyOf = (key: AttributeMap): string => `${text(key.pk)} ${text(key.sk)}`;
const unitsOf = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** The table's global secondary indexes as infra/table.json defines them: hash key and projected attributes. */
const INDEXES = (tableDefinition.GlobalSecondaryIndexes ?? []).map((index) => ({
  name: index.IndexName ?? '',
  keys: (index.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
  hash: index.KeySchema?.find((k) => k.KeyType === 'HASH')?.AttributeName ?? '',
  projected: index.Projection?.ProjectionType === 'INCLUDE' ? (index.Projection.NonKeyAttributes ?? []) : [],
}));
/** Per index the item is in, its partition and the values it projects there (as JSON). */
export type DictionaryEntry = Record<string, { partition: string; projected: string }>;
/** Attributes the indexes are keyed on or project: only a change of these can write an index. */
const INDEXED_ATTRIBUTES = new Set(INDEXES.flatMap((index) => [...index.keys, ...index.projected]));

export const entryOfItem = (item: AttributeMap): DictionaryEntry | null => {
  const entry: DictionaryEntry = {};
  for (const index of INDEXES) {
    if (!index.keys.every((key) => item[key] !== undefined)) continue;
    entry[index.name] = {
      partition: text(item[index.hash]),
      projected: JSON.stringify(index.projected.map((name) => item[name] ?? null)),
    };
  }
  return Object.keys(entry).length > 0 ? entry : null;
};

/** The dictionary entry of a plain record, as `entryOfItem` of its marshalled form. */
export const entryOfRecord = (record: Record<string, unknown>): DictionaryEntry | null =>
  entryOfItem(marshall(record, { removeUndefinedValues: true }) as unknown as AttributeMap);

/**
 * The index writes of a base-table write (AWS's rules for a global secondary index): one write when the item enters
 * or leaves an index, or stays in it with a projected attribute's value changed (so the prefix index, which projects
 * a term's df class, is written when the class changes, not at every df change; a keys-only index only when its keys
 * change), two when its index key changes; none when it is in neither, or stays with the same keys and projected
 * values. An index item here is a few dozen bytes: 1 WCU each, counted as a standard write whether the base write
 * was transactional or not. Each goes to the key `<index> <partition>`, so a hot dictionary partition shows among
 * the hottest keys.
 */
export function indexWrites(
  before: DictionaryEntry | null | undefined,
  after: DictionaryEntry | null | undefined,
) {
  const writes: { key: string; units: number }[] = [];
  for (const { name } of INDEXES) {
    const was = before?.[name];
    const is = after === undefined ? was : after?.[name];
    if (was === undefined && is === undefined) continue;
    if (was !== undefined && is !== undefined) {
      if (was.partition !== is.partition)
        writes.push(
          { key: `${name} ${was.partition}`, units: 1 },
          { key: `${name} ${is.partition}`, units: 1 },
        );
      else if (was.projected !== is.projected) writes.push({ key: `${name} ${is.partition}`, units: 1 });
    } else writes.push({ key: `${name} ${(is ?? was)?.partition}`, units: 1 });
  }
  return writes;
}

/**
 * What an UpdateItem does to an item's dictionary entry: its SET and REMOVE of indexed attributes (the posting
 * writer's df update removes the df class, postings.ts; the dictionary backfill sets the entry). An update that
 * touches no indexed attribute leaves the entry as it was.
 */
export function updatedEntry(expression: string, names: Record<string, string>, values: AttributeMap) {
  const name = (token: string) => names[token] ?? token;
  const set = new Map<string, AttributeValue>();
  const removed = new Set<string>();
  for (const clause of expression.split(/\b(?=SET |REMOVE |ADD |DELETE )/)) {
    const [verb, ...rest] = clause.trim().split(/\s+/);
    const body = rest.join(' ');
    if (verb === 'SET')
      for (const assignment of body.split(',')) {
        const [left, right] = assignment.split('=').map((part) => part.trim());
        if (left && right && values[right]) set.set(name(left), values[right]);
      }
    if (verb === 'REMOVE') for (const attribute of body.split(',')) removed.add(name(attribute.trim()));
  }
  if (![...set.keys(), ...removed].some((attribute) => INDEXED_ATTRIBUTES.has(attribute))) return undefined;
  return (before: DictionaryEntry | undefined): DictionaryEntry | null => {
    // The attributes the entry had (its keys and projections), then the update applied to them.
    const item: AttributeMap = {};
    for (const index of INDEXES) {
      const entry = before?.[index.name];
      if (!entry) continue;
      item[index.hash] = { S: entry.partition };
      for (const key of index.keys) item[key] ??= { S: '?' };
      (JSON.parse(entry.projected) as (AttributeValue | null)[]).forEach((value, i) => {
        const attribute = index.projected[i];
        if (attribute && value) item[attribute] = value;
      });
    }
    for (const attribute of removed) delete item[attribute];
    for (const [attribute, value] of set) item[attribute] = value;
    return entryOfItem(item);
  };
}

/** One write action: its key, its AWS units, the item's size after it (null: deleted) and its dictionary entry. */
interface WriteAction {
  pk: string;
  key: string;
  units: number;
  after: number | null | undefined;
  /** The entry afterwards: null when in no index, undefined when unchanged; an Update's from the entry before. */
  entry:
    | DictionaryEntry
    | null
    | undefined
    | ((before: DictionaryEntry | undefined) => DictionaryEntry | null);
}

/** The write actions of a (marshalled) write command's input, costed by AWS's rules (see the header). */
function writeActions(
  command: string,
  input: Record<string, unknown>,
  sizes: Map<string, number>,
): WriteAction[] {
  const action = (key: AttributeMap, units: number, after?: number | null, entry?: WriteAction['entry']) =>
    ({ pk: text(key.pk), key: keyOf(key), units, after, entry }) satisfies WriteAction;
  const old = (key: AttributeMap) => unitsOf(sizes.get(keyOf(key)) ?? 0);
  const put = (item: AttributeMap, factor: number) => {
    const bytes = itemBytes(item);
    return action(
      item,
      factor * unitsOf(Math.max(bytes, sizes.get(keyOf(item)) ?? 0)),
      bytes,
      entryOfItem(item),
    );
  };
  const remove = (key: AttributeMap, factor: number) => action(key, factor * old(key), null, null);
  // An update's SET and REMOVE of indexed attributes change the entry (postings.ts, the dictionary backfill).
  const update = (update: Record<string, unknown>, factor: number) => {
    const key = update.Key as AttributeMap;
    const entry =
      typeof update.UpdateExpression === 'string'
        ? updatedEntry(
            update.UpdateExpression,
            (update.ExpressionAttributeNames ?? {}) as Record<string, string>,
            (update.ExpressionAttributeValues ?? {}) as AttributeMap,
          )
        : undefined;
    return action(key, factor * old(key), undefined, entry);
  };
  switch (command) {
    case 'PutItem':
      return [put(input.Item as AttributeMap, 1)];
    case 'UpdateItem':
      return [update(input, 1)];
    case 'DeleteItem':
      return [remove(input.Key as AttributeMap, 1)];
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, Record<string, unknown>>[]).map((item) => {
        if (item.Put) return put(item.Put.Item as AttributeMap, 2);
        if (item.Update) return update(item.Update, 2);
        if (item.Delete) return remove(item.Delete.Key as AttributeMap, 2);
        return action((item.ConditionCheck?.Key ?? {}) as AttributeMap, 2);
      });
    case 'BatchWriteItem':
      return batchRequests(input.RequestItems).map((request) =>
        request.PutRequest ? put(request.PutRequest.Item, 1) : remove(request.DeleteRequest?.Key ?? {}, 1),
      );
    default:
      return [];
  }
}

type BatchRequest = { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } };
/** The requests of a BatchWriteItem (its input's RequestItems, or its reply's UnprocessedItems). */
const batchRequests = (items: unknown) =>
  Object.values((items ?? {}) as Record<string, BatchRequest[]>).flat();

export interface KeyTally {
  wcu: number;
  /** Write actions on this key (a transaction's actions counted one each). */
  writes: number;
  /** Transactions (TransactWriteItems calls) with at least one action on this key, including failed ones. */
  transactions: number;
}

/** What the commands sent through a metered client consumed while the tally was the meter's. */
export interface Tally {
  /** Commands sent, and those that failed (DynamoDB reports no capacity for them). */
  calls: number;
  failed: number;
  /** ConsumedCapacity entries answered, and the CapacityUnits they add up to (reads and writes). */
  reported: number;
  units: number;
  rcu: number;
  /** AWS's rule (see the header); what DynamoDB Local answered for the same writes; of `wcu`, the dictionary's indexes. */
  wcu: number;
  reportedWcu: number;
  indexWcu: number;
  /** In the replies: sealed posting blocks (K#<end>), and the sealed blocks named by the directory pages read (X#<page>). */
  blocks: number;
  listed: number;
  /**
   * The pages of NORM_PAGE ids the postings read fall in: what a layout with lengths apart from the postings (Lucene's
   * norms, 2 bytes an id, 4 KB a page) would read besides, at 0.5 RCU a page (README, "an edit").
   */
  normPages: Set<number>;
  /** Writes by partition key, and by item ("pk sk"). */
  keys: Map<string, KeyTally>;
  items: Map<string, KeyTally>;
}

export const newTally = (): Tally => ({
  ...{ calls: 0, failed: 0, reported: 0, units: 0, rcu: 0, wcu: 0, reportedWcu: 0, indexWcu: 0 },
  ...{ blocks: 0, listed: 0, normPages: new Set<number>(), keys: new Map(), items: new Map() },
});

export interface Meter {
  /** Where calls are counted from now on: replace it to start counting afresh. */
  tally: Tally;
  /** Bytes of every item last written through a metered client ("pk sk" → bytes), for AWS's max(old, new). */
  readonly sizes: Map<string, number>;
  /** The dictionary entry of every item last written through a metered client. */
  readonly entries: Map<string, DictionaryEntry>;
}

export const createMeter = (): Meter => ({ tally: newTally(), sizes: new Map(), entries: new Map() });

/** Ids a page of lengths would hold at 2 bytes an id in 4 KB. */
export const NORM_PAGE = 2048;

/** Counts the index records among the items of a reply. */
function countRecords(tally: Tally, items: readonly AttributeMap[]): void {
  for (const item of items) {
    const sk = text(item.sk);
    if (sk.startsWith(PAGE_PREFIX))
      tally.listed += Object.keys(item).filter((name) => endOfPageEntry(name) !== undefined).length;
    // Plain in a document client's reply (bytes or text), marshalled (`{ B }` or `{ S }`) in a low-level one's.
    const p = item.p as Uint8Array | string | { B?: Uint8Array; S?: string } | undefined;
    if (p === undefined || !sk.startsWith(SEALED_PREFIX)) continue;
    if (sk !== TAIL_SK) tally.blocks++;
    const postings = decodeBlock(p instanceof Uint8Array || typeof p === 'string' ? p : (p.B ?? p.S));
    for (const { id } of postings) tally.normPages.add(Math.floor(id / NORM_PAGE));
  }
}

function keyTally(map: Map<string, KeyTally>, key: string): KeyTally {
  const entry = map.get(key) ?? { wcu: 0, writes: 0, transactions: 0 };
  map.set(key, entry);
  return entry;
}

function addWrite(map: Map<string, KeyTally>, key: string, wcu: number): void {
  const entry = keyTally(map, key);
  entry.wcu += wcu;
  entry.writes++;
}

/** Meters every command sent through `client` (a DynamoDBClient, or a document client, which shares its stack). */
export function meterClient(client: DynamoDBClient | DynamoDBDocumentClient, meter: Meter): void {
  const stack = client.middlewareStack as DynamoDBClient['middlewareStack'];
  const commandOf = (context: { commandName?: string }) =>
    (context.commandName ?? '').replace(/Command$/, '');
  // 1. Before the document client marshals and the serializer runs: ask for the capacity.
  stack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const command = commandOf(context);
      if ((READS.has(command) || WRITES.has(command)) && input.ReturnConsumedCapacity === undefined)
        return next({ ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } });
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'benchConsumedCapacityRequest' },
  );
  // 2. After serialization (the input is marshalled here) and around retries: count what came back.
  stack.add(
    (next, context) => async (args) => {
      const command = commandOf(context);
      const write = WRITES.has(command);
      if (!write && !READS.has(command)) return next(args);
      const tally = meter.tally;
      tally.calls++;
      let actions = write ? writeActions(command, args.input as Record<string, unknown>, meter.sizes) : [];
      if (command === 'TransactWriteItems') {
        for (const pk of new Set(actions.map((a) => a.pk))) keyTally(tally.keys, pk).transactions++;
        for (const key of new Set(actions.map((a) => a.key))) keyTally(tally.items, key).transactions++;
      }
      const result = await next(args).catch((error) => {
        tally.failed++;
        throw error;
      });
      const output = result.output as unknown as Record<string, unknown>;
      const answered = [output.ConsumedCapacity ?? []].flat() as Record<string, number | undefined>[];
      const units = (name: string) => answered.reduce((sum, c) => sum + (c[name] ?? 0), 0);
      tally.reported += answered.length;
      tally.units += units('CapacityUnits');
      countRecords(tally, (output.Items ?? []) as AttributeMap[]);
      for (const rows of Object.values((output.Responses ?? {}) as Record<string, unknown>))
        if (Array.isArray(rows)) countRecords(tally, rows);
      // DynamoDB Local answers CapacityUnits only (no read/write split): classify by command.
      if (!write) {
        tally.rcu += units('ReadCapacityUnits') || units('CapacityUnits');
        return result;
      }
      // A BatchWriteItem's unprocessed requests were not written (the caller sends them again): not costed.
      const unprocessed = new Set(
        batchRequests(output.UnprocessedItems).map((r) =>
          keyOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key ?? {}),
        ),
      );
      actions = actions.filter((a) => !unprocessed.has(a.key));
      tally.reportedWcu += units('WriteCapacityUnits') || units('CapacityUnits');
      for (const action of actions) {
        tally.wcu += action.units;
        addWrite(tally.keys, action.pk, action.units);
        addWrite(tally.items, action.key, action.units);
        if (action.after === null) meter.sizes.delete(action.key);
        else if (action.after !== undefined) meter.sizes.set(action.key, action.after);
        const before = meter.entries.get(action.key);
        const entry = typeof action.entry === 'function' ? action.entry(before) : action.entry;
        for (const write of indexWrites(before, entry)) {
          tally.wcu += write.units;
          tally.indexWcu += write.units;
          addWrite(tally.keys, write.key, write.units);
        }
        if (entry === null) meter.entries.delete(action.key);
        else if (entry !== undefined) meter.entries.set(action.key, entry);
      }
      return result;
    },
    { step: 'build', priority: 'low', name: 'benchConsumedCapacityTally' },
  );
}

/** A document client on DynamoDB Local at `endpoint`, metered by a meter of its own. */
export function meteredClient(endpoint: string) {
  const raw = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const meter = createMeter();
  meterClient(raw, meter);
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  return { raw, client, meter };
}

/** Runs `work` with a fresh tally; what it returned and what its calls consumed. */
export async function metered<T>(meter: Meter, work: () => Promise<T>): Promise<{ value: T; tally: Tally }> {
  const tally = newTally();
  meter.tally = tally;
  const value = await work();
  if (tally.reported === 0) throw new Error('DynamoDB Local reported no consumed capacity');
  return { value, tally };
}

/** The `count` keys with the most WCU (or transactions). */
export function hottest(map: Map<string, KeyTally>, count: number, by: 'wcu' | 'transactions' = 'wcu') {
  return [...map]
    .map(([key, t]) => ({ key, ...t }))
    .sort((a, b) => b[by] - a[by])
    .slice(0, count);
}
