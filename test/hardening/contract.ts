// The contract's rules (../shared/CONTRACT.md), written again here without importing lib/: the hardening
// suites check the service against this independent reading, not against the service's own schemas.

export const JSON_TYPE = 'application/json; charset=utf-8';
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_AUTHORIZATION_BYTES = 8 * 1024;
export const REALM = 'Bearer realm="items"';
export const INVALID_TOKEN = `${REALM}, error="invalid_token"`;
export const INSUFFICIENT_SCOPE = `${REALM}, error="insufficient_scope"`;

/** "Characters" in the contract are Unicode code points. */
export const codePoints = (value: string): number => [...value].length;

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const TAG = /^[a-z0-9-]{1,50}$/;
export const ATTRIBUTE_KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ITEM_KEYS = ['id', 'name', 'description', 'tags', 'attributes', 'createdAt', 'updatedAt', 'version'];

const isPositiveSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

/** Whether `value` is an attribute value the contract allows: string ≤ 500, finite number or boolean. */
export const isAttributeValue = (value: unknown): boolean =>
  (typeof value === 'string' && codePoints(value) <= 500) ||
  (typeof value === 'number' && Number.isFinite(value)) ||
  typeof value === 'boolean';

/** Every way `value` breaks the contract's item rules (§2); empty when it is a whole, valid item. */
export function itemProblems(value: unknown): string[] {
  if (!isPlainObject(value)) return ['not an object'];
  const problems: string[] = [];
  const keys = Object.keys(value).sort();
  if (JSON.stringify(keys) !== JSON.stringify([...ITEM_KEYS].sort())) problems.push(`keys ${keys.join(',')}`);
  const { id, name, description, tags, attributes, createdAt, updatedAt, version } = value;
  if (!isPositiveSafeInteger(id)) problems.push('id');
  if (typeof name !== 'string' || codePoints(name.trim()) < 1 || codePoints(name.trim()) > 200) {
    problems.push('name');
  }
  if (typeof description !== 'string' || codePoints(description) > 5000) problems.push('description');
  if (
    !Array.isArray(tags) ||
    tags.length > 20 ||
    new Set(tags).size !== tags.length ||
    !tags.every((tag) => typeof tag === 'string' && TAG.test(tag))
  ) {
    problems.push('tags');
  }
  if (
    !isPlainObject(attributes) ||
    Object.keys(attributes).length > 20 ||
    !Object.entries(attributes).every(([key, v]) => ATTRIBUTE_KEY.test(key) && isAttributeValue(v))
  ) {
    problems.push('attributes');
  }
  for (const [field, stamp] of [
    ['createdAt', createdAt],
    ['updatedAt', updatedAt],
  ] as const) {
    if (typeof stamp !== 'string' || !RFC3339_UTC.test(stamp) || Number.isNaN(Date.parse(stamp))) {
      problems.push(field);
    }
  }
  if (typeof createdAt === 'string' && typeof updatedAt === 'string' && updatedAt < createdAt) {
    problems.push('updatedAt before createdAt');
  }
  if (!isPositiveSafeInteger(version)) problems.push('version');
  return problems;
}

/** Every way an error body breaks §1: `{ error: string, details?: [{ path, message }] }`, nothing else. */
export function errorBodyProblems(body: unknown): string[] {
  if (!isPlainObject(body)) return ['error body is not an object'];
  const problems: string[] = [];
  const extra = Object.keys(body).filter((key) => key !== 'error' && key !== 'details');
  if (extra.length > 0) problems.push(`extra keys ${extra.join(',')}`);
  if (typeof body.error !== 'string' || body.error.length === 0) problems.push('error is not a string');
  if (Object.hasOwn(body, 'details')) {
    const details = body.details;
    if (
      !Array.isArray(details) ||
      details.length === 0 ||
      !details.every(
        (detail) =>
          isPlainObject(detail) &&
          Object.keys(detail).sort().join() === 'message,path' &&
          typeof detail.path === 'string' &&
          typeof detail.message === 'string',
      )
    ) {
      problems.push('details is not a non-empty array of { path, message }');
    }
  }
  return problems;
}

// What an error body must never show (§1): stack traces, exception names, the table, AWS messages.
const INTERNALS = [
  /dynamodb/i,
  /exception/i,
  /items-local/,
  /\bat .+\(.*:\d+:\d+\)/,
  /\.ts:\d+/,
  /\.m?js:\d+/,
  /stack/i,
  /\baws\b/i,
  /errorType/,
  /ECONN|ETIMEDOUT|EPIPE/,
  /Lambda/,
];

/** The first sign of internals in a response body, if any. */
export function leakedInternal(text: string): string | undefined {
  return INTERNALS.find((pattern) => pattern.test(text))?.source;
}
