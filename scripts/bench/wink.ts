// wink-bm25-text-search 3.1.2 is CommonJS without types: the part of its API the BM25 reference uses (its BM25 equals
// the contract's Lucene formula: test/data/bm25-equality.test.ts), with the configuration both users give it.
import { createRequire } from 'node:module';

export interface WinkBm25 {
  defineConfig(config: {
    fldWeights: Record<string, number>;
    bm25Params: { k1: number; b: number; k: number };
  }): boolean;
  definePrepTasks(tasks: ((input: string) => string[])[]): number;
  addDoc(doc: Record<string, string>, id: number): number;
  consolidate(fp: number): boolean;
  search(text: string, limit: number): [string, number][];
}

const winkBm25: () => WinkBm25 = createRequire(import.meta.url)('wink-bm25-text-search');

/**
 * A wink BM25 engine over one field, `body`, with k1 = 1.2, b = 0.75 and k = 1 (Lucene's idf), whose documents and
 * queries are given already tokenized, as words joined by spaces.
 */
export function winkEngine(): WinkBm25 {
  const wink = winkBm25();
  wink.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  wink.definePrepTasks([(text) => text.split(' ').filter((token) => token !== '')]);
  return wink;
}
