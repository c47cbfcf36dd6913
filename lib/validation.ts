import * as v from 'valibot';
import { type ErrorDetail, ValidationError } from './http-errors.ts';

/** Turns valibot issues into the contract's `details`, each path prefixed (`query.limit`, `path.item_id`). */
export function toDetails(
  issues: readonly v.BaseIssue<unknown>[],
  prefix: string,
  root: string,
): ErrorDetail[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue);
    const field = path ? `${prefix}${path}` : root;
    return { path: field, message: issue.message };
  });
}

/** Parses `value` or throws a 422 ValidationError listing every problem. */
export function parseOrReject<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  where: { prefix: string; root: string } = { prefix: '', root: 'body' },
): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new ValidationError(toDetails(result.issues, where.prefix, where.root));
}
