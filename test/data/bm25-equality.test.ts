import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { rankInMemory, type TokenizedDoc } from '../../lib/search/read/rank.ts';
import { tokenize } from '../../lib/search/text/tokenizer.ts';
import { type WinkBm25, winkEngine } from '../../scripts/bench/wink.ts';

const CRANFIELD_DOCS = new URL('../../../shared/data/cranfield/docs.jsonl', import.meta.url);
const CRANFIELD_QUERIES = new URL('../../../shared/data/cranfield/queries.jsonl', import.meta.url);

const readJsonLines = async (url: URL) =>
  (await readFile(url, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line): { id: number; text: string } => JSON.parse(line));

// How wink compares with the contract's Lucene formula (read from src/wink-bm25-text-search.js):
// - idf: wink computes ln((N − n + 0.5) / (n + 0.5) + k) with k = 1 by default — the Lucene idf. k is set
//   to 1 explicitly (scripts/bench/wink.ts) so a change of wink's default cannot pass unnoticed.
// - tf part: idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl)) with the field weight multiplying
//   tf and dl; one field of weight 1 makes it plain BM25 with the same k1, b, dl and avgdl.
// - repeated query tokens: wink adds a term's score once per occurrence in the query, which is what Lucene
//   does (duplicate SHOULD clauses merge into one boosted by their count) and what rankInMemory does, so
//   queries are compared as they are, repeats included.
// - precision: consolidate() rounds every document-term score to `fp` decimals (default 4, at most 9).
//   With fp = 9 the rounding error is ≤ 5e-10 per query term, far below the 1e-6 relative tolerance.
// - prep tasks run on documents and on the query text; both are given already-tokenized text joined by
//   spaces, and the task only splits it back, so both engines see the same tokens.
const WINK_PRECISION = 9;
const DOC_COUNT = 200;

let docs: TokenizedDoc[] = [];
let queries: string[][] = [];
let wink: WinkBm25;

beforeAll(async () => {
  docs = (await readJsonLines(CRANFIELD_DOCS))
    .slice(0, DOC_COUNT)
    .map((doc) => ({ id: doc.id, tokens: tokenize(doc.text) }));
  queries = [
    ...(await readJsonLines(CRANFIELD_QUERIES)).slice(0, 40).map((query) => tokenize(query.text)),
    tokenize('boundary layer boundary layer transition'),
    tokenize('shock shock shock wave'),
    tokenize('flow'),
  ];
  wink = winkEngine();
  for (const doc of docs) wink.addDoc({ body: doc.tokens.join(' ') }, doc.id);
  wink.consolidate(WINK_PRECISION);
});

describe('rankInMemory against wink-bm25-text-search on the first 200 Cranfield documents', () => {
  it('uses a corpus with varied document lengths and queries with repeated terms', () => {
    const lengths = docs.map((doc) => doc.tokens.length);
    expect(docs).toHaveLength(DOC_COUNT);
    expect(Math.max(...lengths) / Math.max(1, Math.min(...lengths.filter((n) => n > 0)))).toBeGreaterThan(5);
    expect(queries.filter((query) => new Set(query).size < query.length).length).toBeGreaterThanOrEqual(3);
  });

  it('scores every document wink returns the same, to 1e-6 relative, and finds the same documents', () => {
    let compared = 0;
    for (const query of queries) {
      const expected = wink.search(query.join(' '), DOC_COUNT);
      const actual = new Map(rankInMemory(docs, query, DOC_COUNT).map((result) => [result.id, result.score]));
      expect([...actual.keys()].sort((a, b) => a - b)).toStrictEqual(
        expected.map(([id]) => Number(id)).sort((a, b) => a - b),
      );
      for (const [id, winkScore] of expected) {
        const score = actual.get(Number(id)) ?? Number.NaN;
        expect(Math.abs(score - winkScore) / winkScore, `query "${query.join(' ')}", doc ${id}`).toBeLessThan(
          1e-6,
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('returns the same top 10 ids as wink for every query', () => {
    for (const query of queries) {
      const expected = wink.search(query.join(' '), 10).map(([id]) => Number(id));
      expect(
        rankInMemory(docs, query, 10).map((result) => result.id),
        query.join(' '),
      ).toStrictEqual(expected);
    }
  });
});
