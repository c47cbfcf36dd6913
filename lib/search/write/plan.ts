import * as v from 'valibot';
import { mapLimit } from '../../concurrency.ts';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { ItemNotFoundError } from '../../items/errors.ts';
import type { Item } from '../../items/schema.ts';
import { logger } from '../../observability.ts';
import { docKey, idOfDocKey, leaseKey, ownerOfLeaseKey } from '../format/keys.ts';
import type { Plan, Run, WriterContext } from './context.ts';
import { type Doc, DocSchema, EMPTY, type Indexed } from './doc-record.ts';
import { isHeld } from './lease.ts';
import { analyze, isShrunk, postingTarget, sameAnalysis } from './target.ts';

const isDataError = (error: unknown) => error instanceof v.ValiError || error instanceof SyntaxError;

/** The items, each parsed alone, so one record that does not parse fails only itself. */
async function readItems(
  { items, concurrency }: WriterContext,
  ids: number[],
): Promise<Map<number, Item | 'invalid'>> {
  try {
    return await items.getMany(ids);
  } catch (error) {
    if (!isDataError(error)) throw error;
  }
  const found = new Map<number, Item | 'invalid'>();
  await mapLimit(ids, concurrency, async (id) => {
    const item = await items.get(id).catch((error) => {
      if (error instanceof ItemNotFoundError) return undefined;
      if (isDataError(error)) return 'invalid' as const;
      throw error;
    });
    if (item) found.set(id, item);
  });
  return found;
}

/** The doc records of `ids`, read consistently; a record that does not parse is `invalid`. */
async function readDocs(
  { client, tableName }: WriterContext,
  ids: number[],
): Promise<Map<number, Doc | 'invalid'>> {
  const records = await batchGet(client, tableName, ids.map(docKey), { consistent: true, concurrency: 4 });
  return new Map(
    records.map((record) => {
      const id = idOfDocKey(record.pk, record.sk) ?? 0;
      const parsed = v.safeParse(DocSchema, record);
      return [id, parsed.success ? parsed.output : 'invalid'];
    }),
  );
}

/**
 * The ends of renewed leases (by owner) of the doc records whose own lease end has passed: their writers' lease
 * records, read consistently (a writer renews under its fence, so a renewal has landed before the end it extends).
 */
async function renewals(ctx: WriterContext, docs: Iterable<Doc | 'invalid'>): Promise<Map<string, number>> {
  const owners = new Set<string>();
  for (const doc of docs)
    if (doc !== 'invalid' && doc.leaseOwner && (doc.leaseUntil ?? 0) <= ctx.now()) owners.add(doc.leaseOwner);
  if (owners.size === 0) return new Map();
  const keys = [...owners].map(leaseKey);
  const records = await batchGet(ctx.client, ctx.tableName, keys, { consistent: true, concurrency: 4 });
  return new Map(records.map((record) => [ownerOfLeaseKey(record.pk) ?? '', Number(record.leaseUntil)]));
}

/**
 * What a pass does with one item: nothing (`unchanged`: indexed at its version by today's analysis, and no
 * compaction renorms it), try again later (`held` by another writer's lease), or rebuild it by a plan.
 */
function planOf(
  ctx: WriterContext,
  run: Run,
  { id, item, doc }: { id: number; item: Item | undefined; doc: Doc | undefined },
  renewed: ReadonlyMap<string, number>,
): Plan | 'unchanged' | 'held' {
  const unfinished = doc?.pending ?? [];
  const target = item ? analyze(item) : EMPTY;
  const renormed = run.renorm.has(id) && doc !== undefined && isShrunk(doc);
  if (
    (!item && !doc) ||
    (item &&
      doc &&
      unfinished.length === 0 &&
      !renormed &&
      doc.version === item.version &&
      sameAnalysis(doc, target))
  )
    return 'unchanged';
  if (isHeld(doc, ctx.now, renewed)) return 'held';
  const committed: Indexed = doc ?? EMPTY;
  return {
    id,
    item,
    committed,
    target: postingTarget(committed, target, renormed),
    unfinished,
    rev: doc?.rev ?? 0,
  };
}

/** A pass's plans for `ids` and the ids it leaves for later (held by another writer); outcomes go to `run`. */
export async function planPass(ctx: WriterContext, ids: number[], run: Run) {
  const [found, docs] = await Promise.all([readItems(ctx, ids), readDocs(ctx, ids)]);
  const renewed = await renewals(ctx, docs.values());
  const again: number[] = [];
  const plans: Plan[] = [];
  for (const id of ids) {
    const item = found.get(id);
    const doc = docs.get(id);
    if (item === 'invalid' || doc === 'invalid') {
      logger.error('item cannot be indexed: its stored record is invalid', { itemId: id });
      run.outcomes.set(id, 'invalid');
      continue;
    }
    const plan = planOf(ctx, run, { id, item, doc }, renewed);
    if (plan === 'unchanged') run.outcomes.set(id, 'unchanged');
    else if (plan === 'held') again.push(id);
    else plans.push(plan);
  }
  return { plans, again };
}
