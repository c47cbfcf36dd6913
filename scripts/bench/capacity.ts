// The kit's one capacity meter: asks every command for its consumed capacity, counts the index records in replies,
// and costs each write action by AWS's rules (BENCHMARKS.md, Ingest), since DynamoDB Local's transactions are not.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { endOfPageEntry, PAGE_PREFIX, SEALED_PREFIX, TAIL_SK } from '../../lib/search/index.ts';
import { tableDefinition } from '../local/dynamodb.ts';
import { sum } from './common.ts';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

type AttributeValue = Record<string, unknown>;
type AttributeMap = Record<string, AttributeValue>;
type Fields = Record<string, unknown>;

const numberBytes = (n: unknown) => Math.ceil(String(n).replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
/** Bytes of a marshalled attribute value's content as DynamoDB sizes it, by its type. */
const CONTENT_BYTES: Record<string, (inner: unknown) => number> = {
  S: (inner) => Buffer.byteLength(String(inner)),
  N: numberBytes,
  B: (inner) => (inner as Uint8Array).length,
  SS: (inner) => sum((inner as string[]).map((s) => Buffer.byteLength(s))),
  NS: (inner) => sum((inner as string[]).map(numberBytes)),
  L: (inner) => 3 + sum((inner as AttributeValue[]).map((v) => 1 + valueBytes(v))),
  M: (inner) => 3 + itemBytes(inner as AttributeMap),
  BOOL: () => 1,
  NULL: () => 1,
};
function valueBytes(value: AttributeValue): number {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  return CONTENT_BYTES[type]?.(inner) ?? 0;
}

const itemBytes = (item: AttributeMap): number =>
  sum(Object.entries(item).map(([name, value]) => Buffer.byteLength(name) + valueBytes(value)));
export const recordBytes = (record: Fields): number =>
  itemBytes(marshall(record, { removeUndefinedValues: true }) as unknown as AttributeMap);

/** A key attribute's text: marshalled (`{ S }`) in a command's input, plain in its reply. */
const text = (value: unknown): string =>
  String(typeof value === 'object' && value !== null ? ((value as AttributeValue).S ?? '?') : (value ?? '?'));
const keyOf = (key: AttributeMap): string => `${text(key.pk)} ${text(key.sk)}`;
const unitsOf = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** The global secondary indexes of infra/table.json: keys, hash key and projected attributes. */
const INDEXES = (tableDefinition.GlobalSecondaryIndexes ?? []).map((index) => ({
  name: index.IndexName ?? '',
  keys: (index.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
  hash: index.KeySchema?.find((k) => k.KeyType === 'HASH')?.AttributeName ?? '',
  projected: index.Projection?.ProjectionType === 'INCLUDE' ? (index.Projection.NonKeyAttributes ?? []) : [],
}));
const INDEXED_ATTRIBUTES = new Set(INDEXES.flatMap((index) => [...index.keys, ...index.projected]));
/** Per index the item is in, its partition and the values it projects there (as JSON). */
type DictionaryEntry = Record<string, { partition: string; projected: string }>;

export const entryOfItem = (item: AttributeMap): DictionaryEntry | null => {
  const entry: DictionaryEntry = {};
  for (const index of INDEXES)
    if (index.keys.every((key) => item[key] !== undefined))
      entry[index.name] = {
        partition: text(item[index.hash]),
        projected: JSON.stringify(index.projected.map((name) => item[name] ?? null)),
      };
  return Object.keys(entry).length > 0 ? entry : null;
};

/**
 * The index writes of a base-table write, by AWS's rules: one when the item enters or leaves an index or a projected
 * value changes, two when its index key changes; 1 WCU each, on the key `<index> <partition>`.
 */
export function indexWrites(before?: DictionaryEntry | null, after?: DictionaryEntry | null) {
  const writes: { key: string; units: number }[] = [];
  for (const { name } of INDEXES) {
    const was = before?.[name];
    const is = after?.[name];
    const write = (partition: string | undefined) => writes.push({ key: `${name} ${partition}`, units: 1 });
    if (was && is && was.partition !== is.partition) write(was.partition);
    if (was && is && (was.partition !== is.partition || was.projected !== is.projected)) write(is.partition);
    if (!was !== !is) write((is ?? was)?.partition);
  }
  return writes;
}

/** What an UpdateItem's SET and REMOVE do to an item's indexed attributes; undefined when it touches none. */
export function updatedItem(expression: string, names: Record<string, string>, values: AttributeMap) {
  const name = (token: string) => names[token.trim()] ?? token.trim();
  const set: AttributeMap = {};
  const removed: string[] = [];
  for (const clause of expression.split(/\b(?=SET |REMOVE |ADD |DELETE )/)) {
    const [verb, ...rest] = clause.trim().split(/\s+/);
    for (const part of rest.join(' ').split(',')) {
      const [left = '', right = ''] = part.split('=').map((side) => side.trim());
      if (verb === 'SET' && values[right]) set[name(left)] = values[right];
      if (verb === 'REMOVE') removed.push(name(part));
    }
  }
  if (![...Object.keys(set), ...removed].some((attribute) => INDEXED_ATTRIBUTES.has(attribute)))
    return undefined;
  return (before: AttributeMap) => ({
    ...Object.fromEntries(Object.entries(before).filter(([a]) => !removed.includes(a))),
    ...set,
  });
}

/** An item's indexed attributes after a write: null when deleted, undefined when unchanged. */
type After = AttributeMap | null | undefined | ((before: AttributeMap) => AttributeMap);
type BatchRequest = { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } };
const batchRequests = (items: unknown) =>
  Object.values((items ?? {}) as Record<string, BatchRequest[]>).flat();
const requestKey = (request: BatchRequest) => request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
const indexedOf = (item: AttributeMap) =>
  Object.fromEntries(Object.entries(item).filter(([name]) => INDEXED_ATTRIBUTES.has(name)));

/** A command's write actions: each item's key, AWS units, its size after (null: deleted) and indexed attributes. */
function writeActions(command: string, input: Fields, sizes: Map<string, number>) {
  // A transaction's actions cost twice the units of the same actions alone.
  const factor = command === 'TransactWriteItems' ? 2 : 1;
  const action = (key: AttributeMap, units: number, bytes?: number | null, after?: After) => ({
    pk: text(key.pk),
    key: keyOf(key),
    units: factor * units,
    bytes,
    after,
  });
  const old = (key: AttributeMap) => unitsOf(sizes.get(keyOf(key)) ?? 0);
  const put = (item: AttributeMap) => {
    const bytes = itemBytes(item);
    return action(item, unitsOf(Math.max(bytes, sizes.get(keyOf(item)) ?? 0)), bytes, indexedOf(item));
  };
  const remove = (key: AttributeMap) => action(key, old(key), null, null);
  const update = (input: Fields) => {
    const { Key, UpdateExpression, ExpressionAttributeNames = {}, ExpressionAttributeValues = {} } = input;
    const after =
      typeof UpdateExpression === 'string'
        ? updatedItem(UpdateExpression, ExpressionAttributeNames as never, ExpressionAttributeValues as never)
        : undefined;
    return action(Key as AttributeMap, old(Key as AttributeMap), undefined, after);
  };
  if (command === 'PutItem') return [put(input.Item as AttributeMap)];
  if (command === 'UpdateItem') return [update(input)];
  if (command === 'DeleteItem') return [remove(input.Key as AttributeMap)];
  if (command === 'BatchWriteItem')
    return batchRequests(input.RequestItems).map((r) =>
      r.PutRequest ? put(r.PutRequest.Item) : remove(requestKey(r)),
    );
  return (input.TransactItems as Record<string, Fields>[]).map((item) => {
    if (item.Put) return put(item.Put.Item as AttributeMap);
    if (item.Update) return update(item.Update);
    if (item.Delete) return remove(item.Delete.Key as AttributeMap);
    return action((item.ConditionCheck?.Key ?? {}) as AttributeMap, 1);
  });
}

/**
 * A read's RCU by the partition key it read: a Query's its key condition's partition (an index's prefixed with its
 * name), a BatchGetItem's each key's by AWS's rule (per item, each 4 KB or part of it half a unit, eventually
 * consistent, as the search reads), any other read the key `<command>`.
 */
export function readKeys(command: string, input: Fields, output: Fields, rcu: number) {
  if (command === 'Query') {
    const [, placeholder = ''] = /=\s*(:\w+)/.exec(String(input.KeyConditionExpression)) ?? [];
    const value = text((input.ExpressionAttributeValues as AttributeMap | undefined)?.[placeholder]);
    return [[`${input.IndexName ? `${input.IndexName} ` : ''}${value}`, rcu] as const];
  }
  if (command !== 'BatchGetItem') return [[command, rcu] as const];
  // The reply's items are a document client's here (unmarshalled), the request's keys marshalled.
  const found = Object.values((output.Responses ?? {}) as Record<string, Record<string, unknown>[]>).flat();
  const bytes = new Map(found.map((item) => [keyOf(item as AttributeMap), recordBytes(item)]));
  return Object.values((input.RequestItems ?? {}) as Record<string, { Keys: AttributeMap[] }>)
    .flatMap((r) => r.Keys)
    .map((key) => [text(key.pk), 0.5 * Math.max(1, Math.ceil((bytes.get(keyOf(key)) ?? 0) / 4096))] as const);
}

/** What the commands sent through a metered client consumed while the tally was the meter's. */
export const newTally = () => ({
  ...{ calls: 0, reported: 0, units: 0, rcu: 0, wcu: 0, reportedWcu: 0, indexWcu: 0 },
  /** Sealed posting blocks in the replies, and the sealed blocks their directory pages list. */
  ...{ blocks: 0, listed: 0 },
  /** WCU by partition key, and RCU (`reads`: `<index> <partition>` for an index's). */
  keys: new Map<string, number>(),
  reads: new Map<string, number>(),
});
export type Tally = ReturnType<typeof newTally>;

/** A tally, and the size and indexed attributes each item last written through a metered client had. */
export const createMeter = () => ({
  tally: newTally(),
  sizes: new Map<string, number>(),
  indexed: new Map<string, AttributeMap>(),
});
type Meter = ReturnType<typeof createMeter>;

function countRecords(tally: Tally, items: readonly AttributeMap[]): void {
  for (const item of items) {
    const sk = text(item.sk);
    if (sk.startsWith(PAGE_PREFIX))
      tally.listed += Object.keys(item).filter((name) => endOfPageEntry(name) !== undefined).length;
    if (item.p !== undefined && sk.startsWith(SEALED_PREFIX) && sk !== TAIL_SK) tally.blocks++;
  }
}

/** Meters every command sent through `client` (a DynamoDBClient, or a document client, which shares its stack). */
export function meterClient(client: { middlewareStack: unknown }, meter: Meter): void {
  const stack = client.middlewareStack as DynamoDBDocumentClient['middlewareStack'];
  const commandOf = (context: { commandName?: string }) =>
    (context.commandName ?? '').replace(/Command$/, '');
  // Before the document client marshals: ask for the capacity.
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
  // After serialization (the input is marshalled here) and around retries: count what came back.
  stack.add(
    (next, context) => async (args) => {
      const command = commandOf(context);
      const write = WRITES.has(command);
      if (!write && !READS.has(command)) return next(args);
      const tally = meter.tally;
      tally.calls++;
      const input = args.input as Fields;
      const actions = write ? writeActions(command, input, meter.sizes) : [];
      // A failed call (a cancelled transaction, a refused condition) answers no capacity: counted, not costed.
      const result = await next(args);
      const output = result.output as unknown as Record<string, unknown>;
      const answered = [output.ConsumedCapacity ?? []].flat() as Record<string, number | undefined>[];
      const units = (name: string) => sum(answered.map((c) => c[name] ?? 0));
      // AWS charges a Query half a unit at least (a unit if consistent) though it finds nothing (the developer
      // guide, read operations); DynamoDB Local answers 0 for it.
      const least = command === 'Query' ? (input.ConsistentRead ? 1 : 0.5) : 0;
      tally.reported += answered.length;
      tally.units += Math.max(least, units('CapacityUnits'));
      countRecords(tally, (output.Items ?? []) as AttributeMap[]);
      for (const rows of Object.values((output.Responses ?? {}) as Record<string, unknown>))
        if (Array.isArray(rows)) countRecords(tally, rows);
      // DynamoDB Local answers CapacityUnits only: classified by command.
      if (!write) {
        const rcu = Math.max(least, units('ReadCapacityUnits') || units('CapacityUnits'));
        tally.rcu += rcu;
        for (const [key, units] of readKeys(command, input, output, rcu))
          tally.reads.set(key, (tally.reads.get(key) ?? 0) + units);
        return result;
      }
      tally.reportedWcu += units('WriteCapacityUnits') || units('CapacityUnits');
      // A BatchWriteItem's unprocessed requests were not written: not costed.
      const unprocessed = new Set(batchRequests(output.UnprocessedItems).map((r) => keyOf(requestKey(r))));
      const cost = (key: string, units: number) => {
        tally.wcu += units;
        tally.keys.set(key, (tally.keys.get(key) ?? 0) + units);
      };
      for (const action of actions.filter((a) => !unprocessed.has(a.key))) {
        cost(action.pk, action.units);
        if (action.bytes === null) meter.sizes.delete(action.key);
        else if (action.bytes !== undefined) meter.sizes.set(action.key, action.bytes);
        const before = meter.indexed.get(action.key) ?? {};
        const after = typeof action.after === 'function' ? action.after(before) : action.after;
        if (after === undefined) continue;
        for (const write of indexWrites(entryOfItem(before), entryOfItem(after ?? {}))) {
          cost(write.key, write.units);
          tally.indexWcu += write.units;
        }
        if (after === null) meter.indexed.delete(action.key);
        else meter.indexed.set(action.key, after);
      }
      return result;
    },
    { step: 'build', priority: 'low', name: 'benchConsumedCapacityTally' },
  );
}

/** What `work` consumed through `meter`'s clients; throws when DynamoDB Local reported nothing. */
export async function metered<T>(meter: Meter, work: () => Promise<T>): Promise<{ value: T; tally: Tally }> {
  const tally = newTally();
  meter.tally = tally;
  const value = await work();
  if (tally.reported === 0) throw new Error('DynamoDB Local reported no consumed capacity');
  return { value, tally };
}
