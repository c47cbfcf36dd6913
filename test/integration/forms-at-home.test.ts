import { beforeEach, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { FORMS_ATTRIBUTE, homeOf, TAIL_SK, termOfPk } from '../../lib/search/format/keys.ts';
import { isExactForm } from '../../lib/search/text/tokenizer.ts';
import { createIndexer, type Indexer } from '../../lib/search/write/indexer.ts';
import { expected, scanAll, snapshot } from '../support/index-state.ts';
import { freshTable } from '../support/stack.ts';

// An exact form's tail lives in its home, its stem's tail record (keys.ts `homeOf`), its sealed blocks and directory
// pages under its own key. These tests write an index and check where each form's records are, with the index exact.

type Table = Awaited<ReturnType<typeof freshTable>>;
/** Tiny blocks, so the commoner forms have sealed blocks and directory pages under their own keys. */
const CAPACITY = 4;
const WORDS = ['camping', 'lanterns', 'running', 'boots', 'hiking', 'trails', 'brightest', 'lamps', 'walked'];

let table: Table;
let items: ItemRepository;
let indexer: Indexer;
const fields = (i: number, extra = '') => ({
  name: `Item ${i}`,
  description: `${WORDS.filter((_, w) => (i * (w + 3)) % (w + 2) !== 0).join(' ')} ${extra}`.trim(),
  tags: [],
  attributes: {},
});

beforeEach(async () => {
  table = await freshTable();
  items = createItemRepository({ ...table, maxLease: 1 });
  indexer = createIndexer({ ...table, items, blockCapacity: CAPACITY });
});

async function createIndexed(count: number): Promise<Item[]> {
  const created: Item[] = [];
  for (let i = 1; i <= count; i++) created.push(await items.create(fields(i)));
  for (let start = 0; start < created.length; start += 8)
    await indexer.reindexItems(created.slice(start, start + 8).map((item) => item.id));
  return created;
}

/** The exact forms whose tail is in a record of its own (none should be), and those in a home. */
async function whereForms() {
  const rows = await scanAll(table);
  const own = rows
    .filter((r) => r.sk === TAIL_SK && isExactForm(termOfPk(r.pk) ?? ''))
    .map((r) => termOfPk(r.pk));
  const home = rows.flatMap((r) => Object.keys((r[FORMS_ATTRIBUTE] as object | undefined) ?? {}));
  return { own: own.sort(), home: home.sort() };
}

describe("exact forms' tails at home", { timeout: 120_000 }, () => {
  it('keeps each form in its stem’s record, its blocks under its own key', async () => {
    const created = await createIndexed(24);
    const { own, home } = await whereForms();
    expect(own).toStrictEqual([]);
    expect(home).toContain('=camping');
    // Every form in the home of its stem, and sealed blocks of forms under their own key.
    for (const row of await scanAll(table))
      for (const form of Object.keys((row[FORMS_ATTRIBUTE] as object | undefined) ?? {}))
        expect(row.pk).toBe(`T#${homeOf(form)}`);
    const rows = await scanAll(table);
    expect(rows.some((r) => String(r.pk).startsWith('T#=') && String(r.sk).startsWith('K#0'))).toBe(true);
    const index = await snapshot(table, CAPACITY);
    expect({ postings: index.postings, df: index.df }).toStrictEqual(
      (({ postings, df }) => ({ postings, df }))(expected(created)),
    );
  });

  it('writes a home whose seals exceed a transaction in several writes, each under the version the last left', async () => {
    // Blocks of two: 60 new items seal 29 blocks (and a directory page) in each of `gener`, `=generated`,
    // `=generating` and `=generation`'s lists: 120 actions beside the home's write, more than a transaction takes.
    const writer = createIndexer({ ...table, items, blockCapacity: 2 });
    const created: Item[] = [];
    for (let i = 1; i <= 60; i++)
      created.push(
        await items.create({
          name: `Item ${i}`,
          description: 'generated generating generation',
          tags: [],
          attributes: {},
        }),
      );
    await writer.reindexItems(created.map((item) => item.id));
    const rows = await scanAll(table);
    const home = rows.find((r) => r.pk === 'T#gener' && r.sk === TAIL_SK);
    expect(Object.keys((home?.[FORMS_ATTRIBUTE] as object | undefined) ?? {}).sort()).toStrictEqual([
      '=generated',
      '=generating',
      '=generation',
    ]);
    const index = await snapshot(table, 2);
    expect({ postings: index.postings, df: index.df }).toStrictEqual(
      (({ postings, df }) => ({ postings, df }))(expected(created)),
    );
    // Two writes of the home (three lists' seals, then the fourth's), its version counting them; blocks sealed.
    expect(home?.v).toBe(2);
    expect(
      rows.filter((r) => termOfPk(r.pk) === '=generation' && String(r.sk).startsWith('K#0')),
    ).toHaveLength(29);
  });
});
