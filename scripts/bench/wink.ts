// wink-bm25-text-search (CommonJS, no types) as the BM25 reference: one field, `body`, k1 = 1.2, b = 0.75 and k = 1
// (Lucene's idf: test/data/bm25-equality.test.ts), documents and queries given tokenized, words joined by spaces.
import { createRequire } from 'node:module';

export interface WinkBm25 {
  defineConfig(config: { fldWeights: Record<string, number>; bm25Params: Record<string, number> }): boolean;
  definePrepTasks(tasks: ((input: string) => string[])[]): number;
  addDoc(doc: Record<string, string>, id: number): number;
  consolidate(fp: number): boolean;
  search(text: string, limit: number): [string, number][];
}

export function winkEngine(): WinkBm25 {
  const wink: WinkBm25 = createRequire(import.meta.url)('wink-bm25-text-search')();
  wink.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  wink.definePrepTasks([(text) => text.split(' ').filter((token) => token !== '')]);
  return wink;
}
