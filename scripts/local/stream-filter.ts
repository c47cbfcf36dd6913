// Lambda's event filtering (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html) for the
// local stream consumer, so that it drops exactly the records the deployed event source mapping drops: the patterns
// are infra/stream.json's `filterPatterns`, which serverless.yml deploys. Only the rules those patterns use are
// implemented (exact strings and `prefix`); any other rule is refused rather than matched wrongly.

/** A filter pattern: fields down to arrays of rules, each an exact string or `{ prefix }`. */
export type FilterPattern = { [field: string]: FilterPattern | FilterRule[] };
type FilterRule = string | { prefix: string };

function ruleMatches(rule: FilterRule, value: unknown): boolean {
  if (typeof rule === 'string') return value === rule;
  if (typeof rule === 'object' && rule !== null && Object.keys(rule).join() === 'prefix')
    return typeof value === 'string' && value.startsWith(rule.prefix);
  throw new Error(
    `stream filter rule ${JSON.stringify(rule)}: only exact strings and prefix are supported locally`,
  );
}

/** Whether `event` satisfies `pattern`: every field of the pattern, a leaf by any of its rules (Lambda's semantics). */
export function matchesPattern(pattern: FilterPattern, event: unknown): boolean {
  return Object.entries(pattern).every(([field, wanted]) => {
    const value =
      typeof event === 'object' && event !== null ? (event as Record<string, unknown>)[field] : undefined;
    return Array.isArray(wanted)
      ? wanted.some((rule) => ruleMatches(rule, value))
      : matchesPattern(wanted, value);
  });
}

/** Whether Lambda passes `event` on: with no pattern every event, else an event any pattern matches (they are ORed). */
export const passesFilters = (patterns: readonly FilterPattern[], event: unknown): boolean =>
  patterns.length === 0 || patterns.some((pattern) => matchesPattern(pattern, event));
