import { describe, expect, it } from 'vitest';
import { itemIdOf } from '../../lib/items/keys.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { queryWeights } from '../../lib/search/format/bm25.ts';
import { migrateIndex } from '../../lib/search/operations/migrate.ts';
import { createDictionary } from '../../lib/search/read/dictionary.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { rankInMemory } from '../../lib/search/read/rank.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { expected, scanAll, snapshot, type Table } from '../support/index-state.ts';
import { FIXTURE, isLegacy, loadLegacyIndex as load } from '../support/legacy-index.ts';
import { acceptItems } from '../support/search.ts';
import { freshTable } from '../support/stack.ts';

const liveItems = async (table: Table): Promise<Item[]> => {
  const items = createItemRepository(table);
  const ids = (await scanAll(table))
    .map((r) => itemIdOf({ pk: String(r.pk), sk: String(r.sk) }))
    .filter((id) => id !== undefined);
  return [...(await items.getMany(ids)).values()].filter((item): item is Item => typeof item !== 'string');
};

describe('npm run reindex -- --migrate (layout 1 to layout 2)', () => {
  it('moves an index written by the code before it, interrupted at any page and resumed, while items change', async () => {
    expect(FIXTURE.filter(isLegacy).length).toBeGreaterThan(100);
    expect(FIXTURE.some((r) => r.sk === 'DF')).toBe(true);
    // 36 items in pages of 10: the reindex reports 4 pages, then the sweep one report per scanned page.
    const stoppedWhileSweeping: boolean[] = [];
    for (const stopAt of [1, 3, 5, 7]) {
      const table = await freshTable();
      await load(table);
      const items = createItemRepository(table);
      const indexer = createIndexer({ ...table, items, blockCapacity: 4 });
      // Layout 2 holds nothing yet: the search finds nothing, the dictionary lists no term of layout 1.
      const search = createSearch({ ...table, maxBlocks: Number.POSITIVE_INFINITY });
      const ask = (query: string) =>
        search({
          terms: queryWeights(tokenize(query)),
          topK: 50,
          minScore: 0,
          ...acceptItems(items),
        });
      expect(await ask('boot trail')).toStrictEqual([]);
      expect(await createDictionary(table).withPrefix('bo')).toStrictEqual([]);

      // A run that stops after `stopAt` progress reports (the reindex's pages, then the sweep's), while the API
      // and the stream consumer go on: an item created and one edited, each indexed in layout 2.
      let reports = 0;
      let sweeping = false;
      const stop = () => {
        reports++;
        if (reports === stopAt) throw new Error('interrupted');
      };
      const created = await items.create({
        name: 'Kettle lamp',
        description: 'A lamp',
        tags: [],
        attributes: {},
      });
      await indexer.reindexItem(created.id);
      const interrupted = await migrateIndex({
        ...table,
        indexer,
        pageSize: 10,
        concurrency: 1,
        scanLimit: 40,
        onProgress: (progress) => {
          if (!progress.final) stop();
        },
        onSwept: () => {
          sweeping = true;
          stop();
        },
      }).then(
        () => false,
        () => true,
      );
      expect(interrupted, `stopped at report ${stopAt}`).toBe(true);
      stoppedWhileSweeping.push(sweeping);
      const [edited] = (await liveItems(table)).slice(3, 4) as [Item];
      const { name, description, tags, attributes } = edited;
      await items.update(edited.id, () => ({
        name,
        description: `${description} rope rope`,
        tags,
        attributes,
      }));
      await indexer.reindexItem(edited.id);

      const { rebuild, swept } = await migrateIndex({ ...table, indexer, pageSize: 10, scanLimit: 40 });
      // Stopped in the reindex, it resumes after its checkpoint; stopped in the sweep, the reindex finds all done.
      if (!sweeping) expect(rebuild.resumedAfter, 'the reindex resumed after its checkpoint').toBeDefined();
      else expect(rebuild.items).toBe(36);
      expect(swept).toBeGreaterThan(0);
      const rows = await scanAll(table);
      expect(rows.filter(isLegacy)).toStrictEqual([]);
      // The items are untouched; the index is exactly the index of the items, with layout 2's invariants.
      const live = await liveItems(table);
      expect(live).toHaveLength(36);
      for (const row of FIXTURE.filter((r) => r.pk === 'ITEM' && Number(r.sk) !== edited.id))
        expect(rows).toContainEqual(row);
      expect(await snapshot(table, 4)).toMatchObject(expected(live));
      for (const query of ['boot trail', 'winter rain jacket', 'rope', 'kettle lamp'])
        expect((await ask(query)).map((hit) => hit.id)).toStrictEqual(
          rankInMemory(
            live.map((item) => ({ id: item.id, tokens: tokenize(itemText(item)) })),
            tokenize(query),
            50,
          ).map((hit) => hit.id),
        );
      // Again: nothing left to do.
      const again = await migrateIndex({ ...table, indexer });
      expect(again.swept).toBe(0);
      expect(await snapshot(table, 4)).toMatchObject(expected(live));
    }
    expect(stoppedWhileSweeping).toStrictEqual([false, false, true, true]);
  }, 240_000);
});
