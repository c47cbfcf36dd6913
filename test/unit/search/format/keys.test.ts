import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  ghostCounts,
  shrunkEntry,
  shrunkKey,
  shrunkOf,
  shrunkReader,
} from '../../../../lib/search/format/keys.ts';

// The shrunk set's entries as a table holds them (keys.ts): a length, a norm and a cut (term → the item's tf).
const entry = fc.record({
  id: fc.integer({ min: 1, max: 40 }),
  dl: fc.integer({ min: 1, max: 200 }),
  norm: fc.integer({ min: 1, max: 200 }),
  cut: fc.dictionary(
    fc.constantFrom('boot', 'rain', '=booting', 'constructor', '__proto__'),
    fc.nat({ max: 3 }),
  ),
});
type Entry = { id: number; dl: number; norm: number; cut: Record<string, number> };
const rowsOf = (entries: readonly Entry[]) =>
  entries.map(({ id, ...rest }) => ({ ...shrunkKey(id), ...shrunkEntry(rest) }));

describe('the shrunk set as a reader reads it', () => {
  test.prop([fc.array(fc.uniqueArray(entry, { selector: (e) => e.id, maxLength: 12 }), { maxLength: 6 })])(
    'reads each set as it is, however the sets read before it differ',
    (reads) => {
      const read = shrunkReader();
      for (const entries of reads) {
        const rows = rowsOf(entries);
        expect(read(rows)).toStrictEqual({
          entries: shrunkOf(rows),
          ghosts: ghostCounts(shrunkOf(rows)),
        });
        expect(shrunkOf(rows).map(({ id, dl, norm, cut }) => ({ id, dl, norm, cut }))).toStrictEqual(
          [...entries]
            .sort((a, b) => a.id - b.id)
            .map(({ id, dl, norm, cut }) => ({ id, dl, norm, cut: { ...cut } })),
        );
      }
    },
  );

  test.prop([fc.uniqueArray(entry, { selector: (e) => e.id, maxLength: 12 })])(
    'counts each term’s ghosts (a cut of 0)',
    (entries) => {
      const ghosts = ghostCounts(shrunkOf(rowsOf(entries)));
      for (const term of ['boot', 'rain', '=booting', 'constructor', '__proto__'])
        expect(ghosts.get(term) ?? 0).toBe(
          entries.filter((e) => Object.hasOwn(e.cut, term) && e.cut[term] === 0).length,
        );
    },
  );
});
