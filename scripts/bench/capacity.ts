// The benchmarks' one capacity meter: an SDK middleware on a DynamoDB client that asks every command for
// `ReturnConsumedCapacity: 'TOTAL'`, sums what comes back in all (with the index records the replies hold, for
// bench:scale and bench:options) and per phase and command, and attributes every write's units to the partition
// key (and the item) it wrote, so bench:ingest can name the hottest key.
//
// What is counted, and how a transaction's units are attributed to keys. DynamoDB reports consumed capacity per
// TABLE, never per item: a TransactWriteItems or BatchWriteItem answers one total for all its items. And DynamoDB
// Local's totals for transactions do not follow AWS's rule (it answers 2 WCU for a transaction of three small
// puts, where AWS charges 2 × 3; single-item writes and reads it reports as AWS does). So every write action is
// costed here by AWS's documented rules, from the item sizes the client sends and the sizes it last wrote to each
// key (the benchmark starts from an empty table, and every write goes through a metered client):
//   Put: ceil(max(old, new size) / 1 KB); Update: ceil(old size / 1 KB), at least 1 (the index's updates are of
//   small counters); Delete: ceil(old size / 1 KB), at least 1; ConditionCheck: 1; inside a transaction each ×2;
// and each action's units go to its own key. That model is the `wcu` figure; what DynamoDB Local answered is kept
// beside it (`reportedWcu`), and for single-item writes the two agree. Reads are DynamoDB Local's own figures
// (consistent reads 1 RCU per 4 KB, eventual 0.5), which follow AWS's rule. Calls that fail (a cancelled
// transaction, a refused condition) answer no capacity: they are counted (`failed`), not costed.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { endOfPageEntry, PAGE_PREFIX, SEALED_PREFIX, TAIL_SK } from '../../lib/search/format/keys.ts';
import { tableDefinition } from '../local/dynamodb.ts';

/** The commands that take `ReturnConsumedCapacity`. */
const METERED = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'TransactGetItemsCommand',
  'BatchWriteItemCommand',
]);
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

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
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (inner as string[]).reduce((sum, s) => sum + Buffer.byteLength(s), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, n) => sum + Math.ceil(n.length / 2) + 1, 0);
    case 'L':
      return 3 + (inner as AttributeValue[]).reduce((sum, v) => sum + 1 + valueBytes(v), 0);
    case 'M':
      return 3 + itemBytes(inner as AttributeMap);
    default:
      return 0;
  }
}

/** Bytes of a marshalled item: attribute names plus values. */
export function itemBytes(item: AttributeMap): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value),
    0,
  );
}

const pkOf = (key: AttributeMap | undefined): string => String(key?.pk?.S ?? '?');
const skOf = (key: AttributeMap | undefined): string => String(key?.sk?.S ?? '?');
/** A key attribute of an answer: marshalled ({S}) from a low-level client, plain from a document client. */
const keyText = (value: unknown): string =>
  typeof value === 'object' && value !== null
    ? String((value as { S?: unknown }).S ?? '?')
    : String(value ?? '?');

/** One write action of a command: the key it writes, its AWS units, and the size it leaves (undefined: deleted). */
interface WriteAction {
  pk: string;
  sk: string;
  units: number;
  /** Bytes of the item afterwards: a number for a Put, null for a Delete, undefined when unchanged/unknown. */
  after: number | null | undefined;
  /**
   * The item's dictionary entry afterwards (lib/search/format/keys.ts), null when in no index, undefined when the
   * write leaves it as it was; an Update gives it from the entry before.
   */
  entry:
    | DictionaryEntry
    | null
    | undefined
    | ((before: DictionaryEntry | undefined) => DictionaryEntry | null);
}

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
      partition: keyText(item[index.hash]),
      projected: JSON.stringify(index.projected.map((name) => item[name] ?? null)),
    };
  }
  return Object.keys(entry).length > 0 ? entry : null;
};

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

const KB = 1024;
const unitsOf = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));

/** The write actions of a (marshalled) write command's input, costed by AWS's rules (see the header). */
function writeActions(
  command: string,
  input: Record<string, unknown>,
  sizes: Map<string, number>,
): WriteAction[] {
  const old = (key: AttributeMap) => sizes.get(`${pkOf(key)} ${skOf(key)}`) ?? 0;
  const put = (item: AttributeMap, factor: number): WriteAction => {
    const bytes = itemBytes(item);
    return {
      pk: pkOf(item),
      sk: skOf(item),
      units: factor * unitsOf(Math.max(bytes, old(item))),
      after: bytes,
      entry: entryOfItem(item),
    };
  };
  const update = (key: AttributeMap, factor: number, input?: Record<string, unknown>): WriteAction => ({
    pk: pkOf(key),
    sk: skOf(key),
    units: factor * unitsOf(old(key)),
    after: undefined,
    entry:
      typeof input?.UpdateExpression === 'string'
        ? updatedEntry(
            input.UpdateExpression,
            (input.ExpressionAttributeNames ?? {}) as Record<string, string>,
            (input.ExpressionAttributeValues ?? {}) as AttributeMap,
          )
        : undefined,
  });
  const remove = (key: AttributeMap, factor: number): WriteAction => ({
    pk: pkOf(key),
    sk: skOf(key),
    units: factor * unitsOf(old(key)),
    after: null,
    entry: null,
  });
  const updateOf = (input: Record<string, unknown>, factor: number) =>
    update(input.Key as AttributeMap, factor, input);
  switch (command) {
    case 'PutItemCommand':
      return [put(input.Item as AttributeMap, 1)];
    case 'UpdateItemCommand':
      return [updateOf(input, 1)];
    case 'DeleteItemCommand':
      return [remove(input.Key as AttributeMap, 1)];
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as Record<string, { Item?: AttributeMap; Key?: AttributeMap }>[]).map(
        (action) => {
          if (action.Put?.Item) return put(action.Put.Item, 2);
          if (action.Update?.Key) return updateOf(action.Update, 2);
          if (action.Delete?.Key) return remove(action.Delete.Key, 2);
          return { ...update(action.ConditionCheck?.Key ?? {}, 2), units: 2 };
        },
      );
    case 'BatchWriteItemCommand':
      return Object.values(
        input.RequestItems as Record<
          string,
          { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } }[]
        >,
      )
        .flat()
        .map((request) =>
          request.PutRequest ? put(request.PutRequest.Item, 1) : remove(request.DeleteRequest?.Key ?? {}, 1),
        );
    default:
      return [];
  }
}

export interface CommandTally {
  calls: number;
  /** Calls that failed (a cancelled transaction, a refused condition): DynamoDB reports no capacity for them. */
  failed: number;
  rcu: number;
  /** AWS's rule (see the header). */
  wcu: number;
  /** What DynamoDB Local answered. */
  reportedWcu: number;
}

export interface KeyTally {
  wcu: number;
  /** Write actions on this key (a transaction's actions counted one each). */
  writes: number;
  /** Transactions (TransactWriteItems calls) with at least one action on this key, including failed ones. */
  transactions: number;
}

export interface PhaseTally {
  rcu: number;
  /** AWS's rule (see the header). */
  wcu: number;
  /** What DynamoDB Local answered for the same writes. */
  reportedWcu: number;
  /** Of `wcu`, the writes to the dictionary's indexes (AWS's rules, see indexWrites). */
  indexWcu: number;
  commands: Record<string, CommandTally>;
  /** By partition key. */
  keys: Map<string, KeyTally>;
  /** By item (pk and sk, joined by a space). */
  items: Map<string, KeyTally>;
}

const emptyPhase = (): PhaseTally => ({
  rcu: 0,
  wcu: 0,
  reportedWcu: 0,
  indexWcu: 0,
  commands: {},
  keys: new Map(),
  items: new Map(),
});

/** Totals of the ConsumedCapacity answered (a single object, or one per table). */
function consumed(output: Record<string, unknown> | undefined) {
  const raw = output?.ConsumedCapacity as
    | { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number }
    | { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number }[]
    | undefined;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  let rcu = 0;
  let wcu = 0;
  let total = 0;
  for (const c of list) {
    rcu += c.ReadCapacityUnits ?? 0;
    wcu += c.WriteCapacityUnits ?? 0;
    total += c.CapacityUnits ?? 0;
  }
  return { rcu, wcu, total, entries: list.length };
}

/**
 * Totals since they were last set to 0: `units` the capacity reported, `calls` the commands, `reported` the
 * ConsumedCapacity entries answered; in the replies, `blocks` sealed posting blocks (K#<end>), `tails` term tails
 * (K#~), `postings` the postings in both, `listed` the sealed blocks named by the directory pages read (X#<page>).
 */
export interface MeterTotals {
  units: number;
  calls: number;
  reported: number;
  postings: number;
  blocks: number;
  tails: number;
  listed: number;
}

export interface CapacityMeter extends MeterTotals {
  /** Phase that calls are counted under from now on. */
  phase: string;
  readonly phases: Map<string, PhaseTally>;
  /** Bytes of every item last written through a metered client ("pk sk" → bytes), for AWS's max(old, new). */
  readonly sizes: Map<string, number>;
  /** The dictionary entry of every item last written through a metered client ("pk sk" → entry). */
  readonly entries: Map<string, DictionaryEntry>;
}

export function createMeter(phase = 'default', sizes = new Map<string, number>()): CapacityMeter {
  const totals = { units: 0, calls: 0, reported: 0, postings: 0, blocks: 0, tails: 0, listed: 0 };
  return { phase, phases: new Map(), sizes, entries: new Map(), ...totals };
}

/** Counts the index records among the items of a reply (marshalled from a low-level client). */
function countRecords(meter: MeterTotals, items: readonly AttributeMap[]): void {
  for (const item of items) {
    const sk = keyText(item.sk);
    if (sk.startsWith(PAGE_PREFIX))
      meter.listed += Object.keys(item).filter((name) => endOfPageEntry(name) !== undefined).length;
    const p = item.p === undefined ? undefined : keyText(item.p);
    if (p === undefined || !sk.startsWith(SEALED_PREFIX)) continue;
    if (sk === TAIL_SK) meter.tails++;
    else meter.blocks++;
    if (p !== '') meter.postings += p.split(',').length;
  }
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

function tally(map: Map<string, KeyTally>, key: string): KeyTally {
  let entry = map.get(key);
  if (!entry) {
    entry = { wcu: 0, writes: 0, transactions: 0 };
    map.set(key, entry);
  }
  return entry;
}

/**
 * Meters every command sent through `client` (a DynamoDBClient, or a document client, which shares its client's
 * middleware stack). Call once per client.
 */
export function meterClient(client: DynamoDBClient | DynamoDBDocumentClient, meter: CapacityMeter): void {
  const stack = client.middlewareStack as DynamoDBClient['middlewareStack'];
  // 1. Before the document client marshals and the serializer runs: ask for the capacity.
  stack.add(
    (next, context) => async (args) => {
      if (METERED.has(context.commandName ?? '') && typeof args.input === 'object' && args.input !== null) {
        const input = args.input as Record<string, unknown>;
        if (input.ReturnConsumedCapacity === undefined)
          args = { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } };
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'benchConsumedCapacityRequest' },
  );
  // 2. After serialization (the input is marshalled here) and around retries: count what came back.
  stack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      if (!METERED.has(command)) return next(args);
      const phase = meter.phases.get(meter.phase) ?? emptyPhase();
      meter.phases.set(meter.phase, phase);
      const counts = phase.commands[command] ?? { calls: 0, failed: 0, rcu: 0, wcu: 0, reportedWcu: 0 };
      phase.commands[command] = counts;
      counts.calls++;
      const input = args.input as Record<string, unknown>;
      let actions = WRITES.has(command) ? writeActions(command, input, meter.sizes) : [];
      if (command === 'TransactWriteItemsCommand') {
        for (const pk of new Set(actions.map((a) => a.pk))) tally(phase.keys, pk).transactions++;
        for (const item of new Set(actions.map((a) => `${a.pk} ${a.sk}`)))
          tally(phase.items, item).transactions++;
      }
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next(args);
      } catch (error) {
        counts.failed++;
        throw error;
      }
      const output = result.output as unknown as Record<string, unknown> | undefined;
      const units = consumed(output);
      meter.calls++;
      meter.units += units.total;
      meter.reported += units.entries;
      countRecords(meter, (output?.Items ?? []) as AttributeMap[]);
      for (const rows of Object.values((output?.Responses ?? {}) as Record<string, unknown>))
        if (Array.isArray(rows)) countRecords(meter, rows);
      // DynamoDB Local answers CapacityUnits only (no read/write split): classify by command.
      if (WRITES.has(command)) {
        // A BatchWriteItem's unprocessed requests were not written (the caller sends them again): not costed.
        if (command === 'BatchWriteItemCommand') {
          const unprocessed = new Set(
            Object.values(
              (output?.UnprocessedItems ?? {}) as Record<
                string,
                Record<string, { Item?: AttributeMap; Key?: AttributeMap }>[]
              >,
            )
              .flat()
              .map((request) => {
                const key = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
                return `${keyText(key.pk)} ${keyText(key.sk)}`;
              }),
          );
          actions = actions.filter((a) => !unprocessed.has(`${a.pk} ${a.sk}`));
        }
        const reported = units.wcu || units.total;
        counts.reportedWcu += reported;
        phase.reportedWcu += reported;
        for (const action of actions) {
          counts.wcu += action.units;
          phase.wcu += action.units;
          for (const entry of [
            tally(phase.keys, action.pk),
            tally(phase.items, `${action.pk} ${action.sk}`),
          ]) {
            entry.wcu += action.units;
            entry.writes++;
          }
          const key = `${action.pk} ${action.sk}`;
          if (action.after === null) meter.sizes.delete(key);
          else if (action.after !== undefined) meter.sizes.set(key, action.after);
          const before = meter.entries.get(key);
          const entry = typeof action.entry === 'function' ? action.entry(before) : action.entry;
          for (const write of indexWrites(before, entry)) {
            counts.wcu += write.units;
            phase.wcu += write.units;
            phase.indexWcu += write.units;
            const entry = tally(phase.keys, write.key);
            entry.wcu += write.units;
            entry.writes++;
          }
          if (entry === null) meter.entries.delete(key);
          else if (entry !== undefined) meter.entries.set(key, entry);
        }
      } else {
        const total = units.rcu || units.total;
        counts.rcu += total;
        phase.rcu += total;
      }
      return result;
    },
    { step: 'build', priority: 'low', name: 'benchConsumedCapacityTally' },
  );
}

/** A phase's tallies (empty when nothing was counted under it). */
export const phaseOf = (meter: CapacityMeter, phase: string): PhaseTally =>
  meter.phases.get(phase) ?? emptyPhase();

/** The `count` keys with the most WCU (or transactions). */
export function hottest(
  map: Map<string, KeyTally>,
  count = 5,
  by: 'wcu' | 'transactions' = 'wcu',
): ({ key: string } & KeyTally)[] {
  return [...map]
    .map(([key, t]) => ({ key, ...t }))
    .sort((a, b) => b[by] - a[by])
    .slice(0, count);
}
