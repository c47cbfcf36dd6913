// npm run bench:pace: DynamoDB Local's own pace, file-backed as `npm start` runs it, in the local stream consumer's
// shape (INDEX_WRITES_PER_TRANSACTION puts a transaction, GROUPS_IN_FLIGHT transactions at once), by the record put:
// the small put the other parts give the pace with, and a term's home as the index writer puts it (binary postings and
// the dictionary's keys, so DynamoDB Local writes both dictionary indexes as well), with a short tail and a full one.
// Whether the index's records cost DynamoDB Local more than the pace's puts (BENCHMARKS.md, Freshness).
import { GROUPS_IN_FLIGHT } from '../../lib/dynamodb/write-groups.ts';
import { BLOCK_CAPACITY, blockMax } from '../../lib/search/format/blocks.ts';
import { tailItem } from '../../lib/search/write/term-records.ts';
import { LOCAL_TABLE, LOCAL_WRITES_PER_TRANSACTION } from '../local/env.ts';
import { envNumber, fmt, table } from './common.ts';
import { localPutRate, type PutShape, withDynamoDb } from './service.ts';

const ROUNDS = envNumber('BENCH_PACE_ROUNDS', 4);

/** A made-up term's home holding `size` postings, as the writer puts it: a new term each put. */
const homeRecord =
  (size: number): NonNullable<PutShape['record']> =>
  (run, i) => {
    const postings = Array.from({ length: size }, (_, k) => ({ id: 1 + k * 7, tf: 1 + (k % 3), dl: 80 + k }));
    const term = `pace${run.replaceAll('-', '')}${i.toString(36)}`;
    return tailItem(term, { postings, df: size, lo: 0, m: blockMax(postings), v: 1, directory: [] });
  };
const shapes: [string, PutShape['record']][] = [
  ['small put', undefined],
  ['home, 8 postings', homeRecord(8)],
  [`home, ${BLOCK_CAPACITY} postings`, homeRecord(BLOCK_CAPACITY)],
];

const rounds = await withDynamoDb(
  [LOCAL_TABLE],
  async ({ endpoint }) => {
    const rates: number[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const ofRound: number[] = [];
      for (const [, record] of shapes)
        ofRound.push(
          await localPutRate(endpoint, LOCAL_TABLE, {
            perTransaction: LOCAL_WRITES_PER_TRANSACTION,
            inFlight: GROUPS_IN_FLIGHT,
            ...(record ? { record } : {}),
          }),
        );
      rates.push(ofRound);
    }
    return rates;
  },
  { fileBacked: true },
);
console.log(
  `DynamoDB Local, file-backed, ${LOCAL_WRITES_PER_TRANSACTION} puts a transaction, ${GROUPS_IN_FLIGHT} in flight: ` +
    `puts a second by record, ${ROUNDS} alternating rounds (the first warms it up)\n`,
);
console.log(
  table(
    ['round', ...shapes.map(([name]) => name)],
    rounds.map((rates, i) => [i + 1, ...rates.map((rate) => fmt(rate, 0))]),
  ),
);
process.exit(0);
