// The search library's public surface: what code outside lib/search/ (the benchmark kit, tools) builds on, so that the
// rooms behind it (text, format, write, read) can change shape without their callers changing with them.

// Inspecting the index's records (docs/index-format.md), for cost meters and capacity models.
export {
  endOfPageEntry,
  homeOf,
  PAGE_PREFIX,
  SEALED_PREFIX,
  SHRUNK_PARTITIONS,
  STATS_PK,
  STATS_SHARDS,
  TAIL_SK,
} from './format/keys.ts';
export { ANSWER_CACHE_MS, ANSWER_RANKING_MS, AnswerCache } from './read/answers.ts';
// Querying: the retriever POST /retrieve runs, its parts, and the same ranking over documents held in memory.
export { createDictionary, type DictionaryOptions } from './read/dictionary.ts';
export { dictionaryInMemory, expandQuery } from './read/expand.ts';
export { FIRST_READS_CACHE_MS, TAIL_READS_CACHE_MS } from './read/first-reads.ts';
export { createSearch, type SearchOptions } from './read/query.ts';
export { indexInMemory } from './read/rank.ts';
export { createRetriever, type RetrieveInput } from './read/retrieve.ts';
// Text: the tokenizer the index and the queries share.
export { createTokenizer, indexTerms, isExactForm, itemText, tokenize } from './text/tokenizer.ts';
// Indexing: the writer the stream consumer and the reindex run, and the stream handler's entry.
export { reindexBatch } from './write/batch.ts';
export { bulkIndexRecords } from './write/bulk.ts';
export { COMPACT_AT, COMPACT_BYTES, createIndexer, STEPS, WRITE_CONCURRENCY } from './write/indexer.ts';
export { indexChanges } from './write/stream.ts';
