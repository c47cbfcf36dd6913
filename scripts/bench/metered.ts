import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { endOfPageEntry, PAGE_PREFIX, SEALED_PREFIX, TAIL_SK } from '../../lib/search/format/keys.ts';

/** A string attribute as the document client returns it, or as the low-level client does (`{ S }`). */
const text = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof (value as { S?: unknown } | undefined)?.S === 'string'
      ? (value as { S: string }).S
      : undefined;

/**
 * A document client whose every command asks for the consumed capacity, which it adds up, with the index records
 * the replies hold: `blocks` sealed posting blocks (K#<end>), `tails` term tails (K#~), `postings` the postings
 * in both (a block's `p` is its text, one entry a posting), and `listed` the sealed blocks named by the directory
 * pages read (X#<page>: one entry a block).
 */
export function meteredClient(endpoint: string) {
  const raw = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const meter = { units: 0, calls: 0, reported: 0, postings: 0, blocks: 0, tails: 0, listed: 0 };
  const count = (items: unknown[]) => {
    for (const item of items as Record<string, unknown>[]) {
      const sk = text(item.sk);
      if (sk?.startsWith(PAGE_PREFIX))
        meter.listed += Object.keys(item).filter((name) => endOfPageEntry(name) !== undefined).length;
      const p = text(item.p);
      if (sk === undefined || p === undefined || !sk.startsWith(SEALED_PREFIX)) continue;
      if (sk === TAIL_SK) meter.tails++;
      else meter.blocks++;
      if (p !== '') meter.postings += p.split(',').length;
    }
  };
  raw.middlewareStack.add(
    (next) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const output = result.output as {
        ConsumedCapacity?: unknown;
        Items?: unknown[];
        Responses?: Record<string, unknown[]>;
      };
      meter.calls++;
      // Query pages and BatchGetItem replies (tails and sealed blocks are read by key, a batch at a time).
      count(output.Items ?? []);
      for (const rows of Object.values(output.Responses ?? {})) if (Array.isArray(rows)) count(rows);
      const consumed = output.ConsumedCapacity;
      for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
        meter.units += (entry as { CapacityUnits?: number }).CapacityUnits ?? 0;
        meter.reported++;
      }
      return result;
    },
    { step: 'initialize', name: 'consumedCapacity' },
  );
  return {
    raw,
    client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
    meter,
  };
}
