import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { marshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { toRecord } from '../../../lib/items/record.ts';
import { ItemWriteSchema, ITEM_LIMITS as L } from '../../../lib/items/schema.ts';

// Lambda hands a function the records of a stream batch in one invocation, up to the payload limit of a synchronous
// invocation (6 MB: EventSourceMappingConfiguration, BatchSize). The index's write units follow its batches (README,
// Costs), so a full batch of the table's stream records must fit one invocation whatever the items hold.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const readJson = async (file: string) => JSON.parse(await readFile(join(ROOT, file), 'utf8'));
const { StreamSpecification } = await readJson('infra/table.json');
const { batchSize } = await readJson('infra/stream.json');
const PAYLOAD_LIMIT = 6 * 1024 * 1024;

/** The largest item the contract accepts (§2's limits), its text of `char`. */
function largestItem(char: string) {
  const text = (chars: number) => char.repeat(chars);
  const write = v.parse(ItemWriteSchema, {
    name: text(L.nameChars),
    description: text(L.descriptionChars),
    tags: Array.from(
      { length: L.tags },
      (_, i) => `${'t'.repeat(L.tagChars - 2)}${String(i).padStart(2, '0')}`,
    ),
    attributes: Object.fromEntries(
      Array.from({ length: L.attributes }, (_, i) => [
        `a${i}`.padEnd(L.attributeKeyChars, '_'),
        text(L.attributeValueChars),
      ]),
    ),
  });
  const at = '2026-11-26T00:00:00.000Z';
  return toRecord({ id: 9_007_199_254_740_991, ...write, createdAt: at, updatedAt: at, version: 1_000_000 });
}

/** An edit's stream record as Lambda delivers it, with what `viewType` carries of the item. */
function editRecord(item: ReturnType<typeof largestItem>, viewType: string): number {
  const image = marshall(item);
  const images = {
    KEYS_ONLY: {},
    NEW_IMAGE: { NewImage: image },
    OLD_IMAGE: { OldImage: image },
    NEW_AND_OLD_IMAGES: { NewImage: image, OldImage: image },
  }[viewType];
  if (images === undefined) throw new Error(`unknown StreamViewType ${viewType}`);
  const record = {
    eventID: 'c4ca4238a0b923820dcc509a6f75849b',
    eventName: 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-central-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_764_115_200,
      Keys: marshall({ pk: item.pk, sk: item.sk }),
      ...images,
      SequenceNumber: '1'.repeat(40),
      SizeBytes: 400_000,
      StreamViewType: viewType,
    },
    eventSourceARN:
      'arn:aws:dynamodb:eu-central-1:123456789012:table/items-prod/stream/2026-11-26T00:00:00.000',
  };
  return Buffer.byteLength(JSON.stringify(record));
}

describe("the table's stream", () => {
  // ASCII text, and text of four-byte characters (the limits count characters).
  const largest = [largestItem('a'), largestItem('\u{1F600}')];

  it('carries records small enough that a full batch of edits of the largest items fits one invocation', () => {
    for (const item of largest)
      expect(batchSize * editRecord(item, StreamSpecification.StreamViewType)).toBeLessThanOrEqual(
        PAYLOAD_LIMIT,
      );
  });

  it('would not with both images: such edits would come in batches of a few dozen to a few hundred', () => {
    const perInvocation = largest.map((item) =>
      Math.floor(PAYLOAD_LIMIT / editRecord(item, 'NEW_AND_OLD_IMAGES')),
    );
    expect(perInvocation.every((records) => records < batchSize)).toBe(true);
    expect(Math.min(...perInvocation)).toBeLessThan(100);
  });
});
