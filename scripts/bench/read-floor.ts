// `npm run bench:read-floor`: the least a query can read from postings stored in doc-id order with a maximum score
// per block (Lucene's and tantivy's layout, read by MaxScore with the block-max rule), computed in memory over the
// synthetic collections of bench:scale with the exact 10th score given from the start (an oracle: a floor). The
// method and the costing are in BENCHMARKS.md ("The read floor…").
//
// Options (environment): BENCH_FLOOR_SIZES (1000,10000,100000), BENCH_FLOOR_BLOCKS (128,512).
import { idf, queryWeights, termScore } from '../../lib/search/format/bm25.ts';
import { indexInMemory } from '../../lib/search/read/rank.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { envList, envSizes } from './common.ts';
import { benchQueries, syntheticItem } from './synthetic.ts';

const SIZES = envSizes('BENCH_FLOOR_SIZES', '1000,10000,100000');
const BLOCKS = envList('BENCH_FLOOR_BLOCKS', '128,512').map(Number);
const TOP_K = 10;
/** The top k's items (consistent, 1 RCU each) and doc records (0.5 each), as bench:scale counts them. */
const FETCH_RCU = TOP_K * 1.5;
const DIRECTORY_BYTES_PER_BLOCK = 12;

interface Posting {
  id: number;
  tf: number;
  dl: number;
}
interface Block {
  lo: number;
  hi: number;
  max: number;
  bytes: number;
}

const rcu = (bytes: number) => Math.ceil(bytes / 4096) * 0.5;

function blocksOf(postings: Posting[], size: number, score: (p: Posting) => number): Block[] {
  const blocks: Block[] = [];
  for (let at = 0; at < postings.length; at += size) {
    const chunk = postings.slice(at, at + size);
    let previous = at > 0 ? (postings[at - 1]?.id ?? 0) : 0;
    let bytes = 0;
    let max = 0;
    for (const p of chunk) {
      bytes += `${(p.id - previous).toString(36)}:${p.tf.toString(36)}:${p.dl.toString(36)},`.length;
      previous = p.id;
      max = Math.max(max, score(p));
    }
    blocks.push({ lo: chunk[0]?.id ?? 0, hi: chunk.at(-1)?.id ?? 0, max, bytes });
  }
  return blocks;
}

/** The largest block maximum of `blocks` (in id order) among those overlapping [lo, hi]. */
function overlapMax(blocks: Block[], lo: number, hi: number): number {
  let low = 0;
  let high = blocks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((blocks[middle]?.hi ?? 0) < lo) low = middle + 1;
    else high = middle;
  }
  let max = 0;
  for (let i = low; i < blocks.length && (blocks[i]?.lo ?? 0) <= hi; i++)
    max = Math.max(max, blocks[i]?.max ?? 0);
  return max;
}

const rows: string[] = [];
for (const size of SIZES) {
  const docs = Array.from({ length: size }, (_, i) => {
    const item = syntheticItem(i + 1, '2026-01-01T00:00:00.000Z');
    return { id: item.id, tokens: tokenize(itemText(item)) };
  });
  const lists = new Map<string, Posting[]>();
  let total = 0;
  for (const { id, tokens } of docs) {
    total += tokens.length;
    const tfs = new Map<string, number>();
    for (const token of tokens) tfs.set(token, (tfs.get(token) ?? 0) + 1);
    for (const [term, tf] of tfs) {
      const list = lists.get(term) ?? [];
      lists.set(term, list);
      list.push({ id, tf, dl: tokens.length });
    }
  }
  const avgdl = total / size;
  const rank = indexInMemory(docs);
  for (const blockSize of BLOCKS) {
    const perQuery: number[] = [];
    for (const query of benchQueries) {
      const weights = queryWeights(tokenize(query));
      const exact = rank(weights, TOP_K);
      const theta = exact.length === TOP_K ? (exact.at(-1)?.score ?? 0) : 0;
      const terms = [...weights].map(([term, weight]) => {
        const postings = lists.get(term) ?? [];
        const termIdf = weight * idf(size, postings.length);
        const score = (p: Posting) => termScore({ tf: p.tf, dl: p.dl, avgdl, idf: termIdf });
        const blocks = blocksOf(postings, blockSize, score);
        return { postings, score, blocks, max: Math.max(0, ...blocks.map((b) => b.max)) };
      });
      // MaxScore: the terms of least maximum whose maxima add up to θ or less are not essential (a document with
      // none of the others cannot enter the top k); they are read only where a candidate needs them.
      const sorted = [...terms].sort((a, b) => a.max - b.max);
      let optional = 0;
      for (let sum = 0; optional < sorted.length && sum + (sorted[optional]?.max ?? 0) <= theta; optional++)
        sum += sorted[optional]?.max ?? 0;
      const essential = sorted.slice(optional);
      const nonEssential = sorted.slice(0, optional);
      let units = FETCH_RCU;
      const partial = new Map<number, number>();
      const read = (term: (typeof terms)[number], must: (block: Block) => boolean) => {
        units += rcu(term.blocks.length * DIRECTORY_BYTES_PER_BLOCK);
        let run = 0;
        term.blocks.forEach((block, b) => {
          if (must(block)) {
            run += block.bytes;
            for (const p of term.postings.slice(b * blockSize, (b + 1) * blockSize))
              partial.set(p.id, (partial.get(p.id) ?? 0) + term.score(p));
          } else {
            if (run > 0) units += rcu(run);
            run = 0;
          }
        });
        if (run > 0) units += rcu(run);
      };
      // Essential terms: a block whose maximum plus the others' overlapping maxima can pass θ.
      for (const term of essential)
        read(term, (block) => {
          let bound = block.max;
          for (const other of terms)
            if (other !== term) bound += overlapMax(other.blocks, block.lo, block.hi);
          return bound > theta;
        });
      // Others: a block that holds a candidate (a document of an essential term) that could still pass θ with it.
      const candidates = [...partial.keys()].sort((a, b) => a - b);
      const rest = nonEssential.reduce((sum, term) => sum + term.max, 0);
      for (const term of nonEssential)
        read(term, (block) => {
          let from = 0;
          for (let high = candidates.length; from < high; ) {
            const middle = (from + high) >>> 1;
            if ((candidates[middle] ?? 0) < block.lo) from = middle + 1;
            else high = middle;
          }
          for (let i = from; i < candidates.length && (candidates[i] ?? 0) <= block.hi; i++)
            if ((partial.get(candidates[i] ?? 0) ?? 0) + block.max + rest - term.max > theta) return true;
          return false;
        });
      perQuery.push(units);
    }
    const mean = perQuery.reduce((sum, u) => sum + u, 0) / perQuery.length;
    rows.push(
      `| ${size.toLocaleString('en')} | ${blockSize} | ${mean.toFixed(1)} | ${Math.max(...perQuery).toFixed(1)} | ${perQuery.map((u) => u.toFixed(1)).join(' / ')} |`,
    );
    console.log(rows.at(-1));
  }
}
console.log(
  `\n| items | postings a block | RCU a query, mean (floor) | max | each of the ${benchQueries.length} queries |\n|---|---|---|---|---|\n${rows.join('\n')}`,
);
