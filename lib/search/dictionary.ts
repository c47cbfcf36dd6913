import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  LENGTH_INDEX,
  lengthPartition,
  PREFIX_INDEX,
  PREFIX_PARTITION_LENGTH,
  prefixPartition,
} from './keys.ts';

/** A term of the dictionary with its df (its number of postings). */
export interface DictionaryTerm {
  term: string;
  df: number;
}

/** Reads the term dictionary (keys.ts: two indexes over each term's head record). */
export interface Dictionary {
  /** Every indexed term that begins with `word` (at least PREFIX_PARTITION_LENGTH code points), in term order. */
  withPrefix(word: string): Promise<DictionaryTerm[]>;
  /** Every indexed term of `length` code points, in term order. */
  ofLength(length: number): Promise<DictionaryTerm[]>;
}

/**
 * The dictionary on the table's two term indexes. Index reads are eventually consistent (a term indexed a moment
 * ago may be missing for that moment); the query reads each chosen term's postings and df from the table itself.
 * A term whose postings were all removed keeps its DF record at df 0 (postings.ts), and is skipped here.
 */
export function createDictionary({
  client,
  tableName,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
}): Dictionary {
  async function all(indexName: string, key: string, partition: string, prefix?: string) {
    const terms: DictionaryTerm[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: indexName,
          KeyConditionExpression: prefix ? '#k = :k AND begins_with(wt, :w)' : '#k = :k',
          ExpressionAttributeNames: { '#k': key },
          ExpressionAttributeValues: { ':k': partition, ...(prefix ? { ':w': prefix } : {}) },
          ProjectionExpression: 'wt, df',
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const { wt, df } of page.Items ?? [])
        if (typeof wt === 'string' && typeof df === 'number' && df > 0) terms.push({ term: wt, df });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return terms;
  }
  return {
    withPrefix: (word) => {
      if ([...word].length < PREFIX_PARTITION_LENGTH)
        throw new RangeError(`A prefix needs ${PREFIX_PARTITION_LENGTH} code points at least`);
      return all(PREFIX_INDEX, 'wp', prefixPartition(word), word);
    },
    ofLength: (length) => all(LENGTH_INDEX, 'wl', lengthPartition(length)),
  };
}
