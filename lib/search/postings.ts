import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { onlyConditionFailures } from '../dynamodb/conditions.ts';
import { saturation } from './bm25.ts';
import { dfKey, impactOf, postingSk, REFERENCE_LENGTH, termPk } from './keys.ts';

/** One posting record: `term` occurs `tf` times in an item of length `dl`; `sk` orders it by impact. */
export interface Posting {
  term: string;
  sk: string;
  tf: number;
  dl: number;
}

/** Terms per transaction: each term is a posting write plus its df update, and a transaction holds 100 actions. */
const TERMS_PER_TRANSACTION = 50;

/** The postings of an indexed state, keyed by posting sort key (deterministic: retries write the same keys). */
export function postingsOf(
  id: number,
  indexed: { dl: number; terms: Record<string, number> },
): Map<string, Posting> {
  const postings = new Map<string, Posting>();
  for (const [term, tf] of Object.entries(indexed.terms)) {
    const sk = postingSk(impactOf(saturation({ tf, dl: indexed.dl, avgdl: REFERENCE_LENGTH })), id);
    postings.set(`${term}\u0000${sk}`, { term, sk, tf, dl: indexed.dl });
  }
  return postings;
}

/** Splits postings into transactions of at most 50 terms, never touching one term's df twice in a transaction. */
function chunks(postings: Posting[]): Posting[][] {
  const result: Posting[][] = [];
  let current: Posting[] = [];
  let terms = new Set<string>();
  for (const posting of postings) {
    if (current.length === TERMS_PER_TRANSACTION || terms.has(posting.term)) {
      result.push(current);
      current = [];
      terms = new Set();
    }
    current.push(posting);
    terms.add(posting.term);
  }
  if (current.length > 0) result.push(current);
  return result;
}

/**
 * Adds and removes an item's postings, each together with its term's df in one transaction with a condition on
 * the posting, so df always equals the posting count. Postings already in (or out of) place are skipped.
 */
export function createPostingWriter({
  client,
  tableName,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
}) {
  const postingPut = (id: number, p: Posting) => ({
    Put: {
      TableName: tableName,
      Item: { pk: termPk(p.term), sk: p.sk, i: id, tf: p.tf, dl: p.dl },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  const postingDelete = (p: Posting) => ({
    Delete: {
      TableName: tableName,
      Key: { pk: termPk(p.term), sk: p.sk },
      ConditionExpression: 'attribute_exists(pk)',
    },
  });
  const dfAdd = (term: string, delta: number) => ({
    Update: {
      TableName: tableName,
      Key: dfKey(term),
      UpdateExpression: 'ADD df :d',
      ExpressionAttributeValues: { ':d': delta },
    },
  });

  async function apply(id: number, postings: Posting[], add: boolean): Promise<void> {
    const actionsOf = (p: Posting) => [
      add ? postingPut(id, p) : postingDelete(p),
      dfAdd(p.term, add ? 1 : -1),
    ];
    for (const chunk of chunks(postings)) {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: chunk.flatMap(actionsOf) }));
      } catch (error) {
        if (!onlyConditionFailures(error)) throw error;
        // Some postings were already in place (a retried rebuild): apply the rest one by one.
        for (const posting of chunk) {
          await client.send(new TransactWriteCommand({ TransactItems: actionsOf(posting) })).catch((e) => {
            if (!onlyConditionFailures(e)) throw e;
          });
        }
      }
    }
  }

  return {
    /** Writes item `id`'s postings and adds 1 to each term's df; postings already there are skipped. */
    add: (id: number, postings: Posting[]) => apply(id, postings, true),
    /** Deletes item `id`'s postings and takes 1 from each term's df; postings already gone are skipped. */
    remove: (id: number, postings: Posting[]) => apply(id, postings, false),
  };
}
