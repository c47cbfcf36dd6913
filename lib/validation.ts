import * as v from 'valibot';
import { type FieldProblem, InvalidInputError } from './errors.ts';

/** Turns valibot issues into field problems (the contract's `details`), each path prefixed (`query.limit`). */
export function toDetails(
  issues: readonly v.BaseIssue<unknown>[],
  prefix: string,
  root: string,
): FieldProblem[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue);
    const field = path ? `${prefix}${path}` : root;
    return { path: field, message: issue.message };
  });
}

/** Parses `value` or throws an InvalidInputError listing every problem. */
export function parseOrReject<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  where: { prefix: string; root: string } = { prefix: '', root: 'body' },
): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new InvalidInputError(toDetails(result.issues, where.prefix, where.root));
}

/**
 * A regular expression source (no anchors) matching exactly the decimal integers 1 to `max`, without leading
 * zeros: what a path segment or header may spell, with its bound exact, so a JSON Schema `pattern` can say it.
 */
export function positiveIntegerPattern(max: string): string {
  if (!/^[1-9][0-9]*$/.test(max)) throw new Error(`Not a positive integer: ${max}`);
  const digits = [...max].map(Number);
  // Fewer digits than max: any such number.
  const alternatives = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  // As many digits: max's first i digits, then a smaller one, then anything.
  digits.forEach((digit, i) => {
    const lowest = i === 0 ? 1 : 0;
    if (digit <= lowest) return;
    const smaller = digit - 1 === lowest ? `${lowest}` : `[${lowest}-${digit - 1}]`;
    const rest = digits.length - i - 1;
    alternatives.push(
      `${max.slice(0, i)}${smaller}${rest > 1 ? `[0-9]{${rest}}` : rest === 1 ? '[0-9]' : ''}`,
    );
  });
  alternatives.push(max);
  return `(?:${alternatives.join('|')})`;
}

/** 1 to 9007199254740991 (`Number.MAX_SAFE_INTEGER`), as item ids and versions are. */
export const SAFE_POSITIVE_INTEGER = positiveIntegerPattern(String(Number.MAX_SAFE_INTEGER));
