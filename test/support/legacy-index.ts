import { readFileSync } from 'node:fs';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from './index-state.ts';

/**
 * An index of layout 1 as the code before issue #19 wrote it (79994c7: 40 items indexed in batches of 10 with blocks
 * of four, then edits and deletions indexed; 35 items left), every record of its table: the items, the counter,
 * impact-ordered blocks `B#…`, DF records, doc records `DOC` and the counts `CORPUS`.
 */
export const FIXTURE: Record<string, unknown>[] = JSON.parse(
  readFileSync(new URL('../fixtures/index-layout-1.json', import.meta.url), 'utf8'),
);
export const isLegacy = (r: Record<string, unknown>) => {
  const [pk, sk] = [String(r.pk), String(r.sk)];
  return (
    (pk.startsWith('T#') && (sk.startsWith('B#') || sk === 'DF')) ||
    (pk.startsWith('D#') && sk === 'DOC') ||
    (pk === 'STATS' && sk === 'CORPUS')
  );
};

/** Writes the fixture's records into `table`. */
export async function loadLegacyIndex(table: Table) {
  for (let i = 0; i < FIXTURE.length; i += 25)
    await table.client.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: FIXTURE.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
        },
      }),
    );
}
