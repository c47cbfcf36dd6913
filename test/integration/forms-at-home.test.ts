import { beforeEach, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { FORMS_ATTRIBUTE, homeOf, TAIL_SK, termOfPk } from '../../lib/search/format/keys.ts';
import { backfillDictionary } from '../../lib/search/operations/backfill-dictionary.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { isExactForm } from '../../lib/search/text/tokenizer.ts';
import { createIndexer, type Indexer } from '../../lib/search/write/indexer.ts';
import { createPostingWriter } from '../../lib/search/write/postings.ts';
import { expected, formsToLegacy, scanAll, snapshot } from '../support/index-state.ts';
import { freshTable } from '../support/stack.ts';

// An exact form's tail lives in its home, its stem's tail record (keys.ts `homeOf`); a table written before kept it
// in its own record. These tests write an index, put it back in the layout before the homes (each form's tail in its
// own record, as that code wrote it), and check that it reads the same, that writers move what they touch home and
// `npm run reindex -- --dictionary` the rest, with the index exact throughout.

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

/** The exact forms whose tail is in its own record, and those in a home. */
async function whereForms() {
  const rows = await scanAll(table);
  const legacy = rows
    .filter((r) => r.sk === TAIL_SK && isExactForm(termOfPk(r.pk) ?? ''))
    .map((r) => termOfPk(r.pk));
  const home = rows.flatMap((r) => Object.keys((r[FORMS_ATTRIBUTE] as object | undefined) ?? {}));
  return { legacy: legacy.sort(), home: home.sort() };
}

async function answers(queries: readonly string[]) {
  const search = createSearch({ ...table });
  const retrieve = createRetriever({ search, items, dictionary: createDictionary({ ...table, cacheMs: 0 }) });
  const out: unknown[] = [];
  for (const query of queries) {
    const { results } = await retrieve({ query, topK: 10, minScore: 0 });
    out.push(results.map((hit) => [hit.item.id, hit.score, hit.matchedTerms]));
  }
  return out;
}
const QUERIES = ['camping lanterns', 'running boots', 'hiking trails brightest', 'walked lamps', 'camp run'];

describe("exact forms' tails at home", { timeout: 120_000 }, () => {
  it('keeps each form in its stem’s record, its blocks under its own key', async () => {
    const created = await createIndexed(24);
    const { legacy, home } = await whereForms();
    expect(legacy).toStrictEqual([]);
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

  it('reads a table written before the homes alike, and its writers and --dictionary move the forms home', async () => {
    const created = await createIndexed(24);
    const before = await answers(QUERIES);
    expect(before.every((hits) => (hits as unknown[]).length > 0)).toBe(true);
    expect(await formsToLegacy(table)).toBeGreaterThan(2);
    const { legacy, home } = await whereForms();
    expect(home).toStrictEqual([]);
    expect(legacy).toContain('=camping');
    // A form with sealed blocks and directory pages of its own.
    expect((await scanAll(table)).some((r) => r.pk === 'T#=camping' && String(r.sk).startsWith('X#'))).toBe(
      true,
    );
    // The same index, read the same.
    expect((await snapshot(table, CAPACITY)).postings).toStrictEqual(expected(created).postings);
    expect(await answers(QUERIES)).toStrictEqual(before);

    // Writers move what they touch home, in the write that changes it, and keep the index exact: edits of older items
    // (sealed blocks of the forms) and new items (their tails), beside a move of every form at once.
    const edited = await Promise.all(
      created
        .slice(0, 6)
        .map((item) => items.update(item.id, () => fields(item.id, 'camping hiking walked'))),
    );
    const added = [await items.create(fields(99, 'running lanterns')), await items.create(fields(100))];
    const writer = createPostingWriter({ ...table, blockCapacity: CAPACITY });
    await Promise.all([
      indexer.reindexItems([...edited, ...added].map((item) => item.id)),
      writer.moveHome(legacy.filter((form): form is string => form !== undefined)),
    ]);
    const now = [...edited, ...created.slice(6), ...added];
    const index = await snapshot(table, CAPACITY);
    expect({ postings: index.postings, df: index.df }).toStrictEqual(
      (({ postings, df }) => ({ postings, df }))(expected(now)),
    );
    expect((await whereForms()).legacy).toStrictEqual([]);
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
    expect(rows.filter((r) => r.pk === 'T#=generation' && String(r.sk).startsWith('K#0'))).toHaveLength(29);
  });

  it('--dictionary moves every form still in its own record home, beside a writer, and says how many', async () => {
    const created = await createIndexed(16);
    const before = await answers(QUERIES);
    const forms = await formsToLegacy(table);
    const changed = await items.update(created[3]?.id ?? 0, () => fields(4, 'brightest camping'));
    const [moved] = await Promise.all([
      backfillDictionary({ ...table, blockCapacity: CAPACITY }),
      indexer.reindexItems([changed.id]),
    ]);
    expect(moved.moved).toBe(forms);
    expect((await whereForms()).legacy).toStrictEqual([]);
    const now = created.map((item) => (item.id === changed.id ? changed : item));
    const index = await snapshot(table, CAPACITY);
    expect({ postings: index.postings, df: index.df }).toStrictEqual(
      (({ postings, df }) => ({ postings, df }))(expected(now)),
    );
    const again = await backfillDictionary({ ...table, blockCapacity: CAPACITY });
    expect(again.moved).toBe(0);
    // Read alike in both layouts.
    const after = await answers(QUERIES);
    expect(after).not.toStrictEqual(before);
    await formsToLegacy(table);
    expect(await answers(QUERIES)).toStrictEqual(after);
  });
});
