import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A document client whose every command asks for the consumed capacity, which it adds up. */
export function meteredClient(endpoint: string) {
  const raw = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const meter = { units: 0, calls: 0, reported: 0, postings: 0 };
  raw.middlewareStack.add(
    (next) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      meter.calls++;
      if ((args.input as { KeyConditionExpression?: string }).KeyConditionExpression) {
        // Blocks of postings, as the document client returns them (`p` is the block's text).
        for (const item of (result.output as { Items?: { p?: unknown }[] }).Items ?? [])
          if (typeof item.p === 'string') meter.postings += item.p.split(',').length;
      }
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
