import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import {
  isDictionaryEntry,
  LENGTH_INDEX,
  lengthPartition,
  PREFIX_INDEX,
  PREFIX_PARTITION_LENGTH,
  prefixPartition,
  tailKey,
  termOfPk,
} from '../format/keys.ts';

/** A term of the dictionary with its df (its number of postings). */
export interface DictionaryTerm {
  term: string;
  df: number;
}

/** Reads the term dictionary (keys.ts: two indexes over each term's tail). */
export interface Dictionary {
  /** Every indexed term that begins with `word` (at least PREFIX_PARTITION_LENGTH code points), in term order. */
  withPrefix(word: string): Promise<DictionaryTerm[]>;
  /**
   * The terms of `length` code points, in term order: every indexed one, and perhaps terms whose postings are all
   * gone (a tail emptied by a removal from a sealed block keeps its entry at df 0); `dfOf` tells them apart.
   */
  ofLength(length: number): Promise<string[]>;
  /** The df of each term (0 for a term with no postings). */
  dfOf(terms: readonly string[]): Promise<Map<string, number>>;
}

/**
 * The dictionary on the table's two term indexes. Index reads are eventually consistent (a term indexed a moment
 * ago may be missing for that moment); the query reads each chosen term's postings and df from the table itself.
 * A term whose postings were all removed may keep its entry at df 0 (postings.ts), and is skipped here; so are the
 * head records of an index of layout 1 that a migration has not removed yet (keys.ts).
 */
export function createDictionary({
  client,
  tableName,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
}): Dictionary {
  async function all(indexName: string, key: string, partition: string, prefix?: string) {
    const terms: { term: string; df: number | undefined }[] = [];
    const rows = await queryAll(client, {
      TableName: tableName,
      IndexName: indexName,
      KeyConditionExpression: prefix ? '#k = :k AND begins_with(wt, :w)' : '#k = :k',
      ExpressionAttributeNames: { '#k': key },
      ExpressionAttributeValues: { ':k': partition, ...(prefix ? { ':w': prefix } : {}) },
      ProjectionExpression: indexName === PREFIX_INDEX ? 'sk, wt, df' : 'sk, wt',
    });
    for (const { sk, wt, df } of rows)
      if (typeof wt === 'string' && isDictionaryEntry({ sk }))
        terms.push({ term: wt, df: typeof df === 'number' ? df : undefined });
    return terms;
  }
  return {
    withPrefix: async (word) => {
      if ([...word].length < PREFIX_PARTITION_LENGTH)
        throw new RangeError(`A prefix needs ${PREFIX_PARTITION_LENGTH} code points at least`);
      return (await all(PREFIX_INDEX, 'wp', prefixPartition(word), word)).flatMap(({ term, df }) =>
        df !== undefined && df > 0 ? [{ term, df }] : [],
      );
    },
    ofLength: async (length) =>
      (await all(LENGTH_INDEX, 'wl', lengthPartition(length))).map(({ term }) => term),
    // Each term's tail holds its df (postings.ts).
    dfOf: async (terms) => {
      const records = await batchGet(client, tableName, terms.map(tailKey));
      const found = new Map(
        records.map(({ pk, df }) => [termOfPk(pk) ?? '', typeof df === 'number' ? df : 0]),
      );
      return new Map(terms.map((term) => [term, found.get(term) ?? 0]));
    },
  };
}
