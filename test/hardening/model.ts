// What the contract says a request should do, decided here from the parsed request alone (no lib/ import).
// `valid` carries the normalized value the service must store or use; `invalid` means 422; `either` marks
// the few inputs the contract does not settle (or where the service knowingly differs; see the report).
import { ATTRIBUTE_KEY, codePoints, isAttributeValue, isPlainObject, TAG } from './contract.ts';

/** `merge`: only the merged result is invalid, which the service finds after the If-Match check. */
export type Outcome<T> = { kind: 'valid'; value: T } | { kind: 'invalid'; merge?: true } | { kind: 'either' };

const valid = <T>(value: T): Outcome<T> => ({ kind: 'valid', value });
const INVALID = { kind: 'invalid' } as const;
const EITHER = { kind: 'either' } as const;

export type AttributeValue = string | number | boolean;
export interface Fields {
  name: string;
  description: string;
  tags: string[];
  attributes: Record<string, AttributeValue>;
}

/**
 * Attribute keys follow the contract's key rule alone, in writes and in filters: `constructor` and `prototype`
 * match it and are accepted (they were once refused, and before that silently dropped, which the fuzzer found);
 * `__proto__` fails it. Non-object attribute maps are 422.
 */

/** Collects problems; `reserved` notes an input the contract does not settle, which only matters when nothing else is wrong. */
class Verdict {
  problems = 0;
  mergeProblems = 0;
  reserved = false;
  fail(): undefined {
    this.problems++;
    return undefined;
  }
  outcome<T>(value: T): Outcome<T> {
    if (this.problems > 0) return INVALID;
    if (this.reserved) return EITHER;
    return this.mergeProblems > 0 ? { kind: 'invalid', merge: true } : valid(value);
  }
}

function name(value: unknown, verdict: Verdict): string | undefined {
  if (typeof value !== 'string') return verdict.fail();
  const trimmed = value.trim();
  const length = codePoints(trimmed);
  return length >= 1 && length <= 200 ? trimmed : verdict.fail();
}

function description(value: unknown, verdict: Verdict): string | undefined {
  return typeof value === 'string' && codePoints(value) <= 5000 ? value : verdict.fail();
}

function tags(value: unknown, verdict: Verdict, distinct: boolean): string[] | undefined {
  if (!Array.isArray(value) || value.length > 20) return verdict.fail();
  const lowered: string[] = [];
  for (const tag of value) {
    if (typeof tag !== 'string' || !TAG.test(tag.toLowerCase())) verdict.fail();
    else lowered.push(tag.toLowerCase());
  }
  if (distinct && new Set(lowered).size !== lowered.length) verdict.fail();
  return lowered;
}

function attributeMap(
  value: unknown,
  verdict: Verdict,
  options: { nullRemoves: boolean; maxKeys: number | undefined; filter?: boolean },
): Record<string, AttributeValue | null> | undefined {
  if (!isPlainObject(value)) return verdict.fail();
  const out: Record<string, AttributeValue | null> = {};
  const keys = Object.keys(value);
  if (options.maxKeys !== undefined && keys.length > options.maxKeys) verdict.fail();
  for (const key of keys) {
    const v = value[key];
    if (!ATTRIBUTE_KEY.test(key)) verdict.fail();
    if (v === null && options.nullRemoves) out[key] = null;
    else if (isAttributeValue(v)) out[key] = v as AttributeValue;
    else verdict.fail();
  }
  return out;
}

const WRITABLE = new Set(['name', 'description', 'tags', 'attributes']);

/** `POST /items` and `PUT /items/{id}` bodies: the stored fields, or 422. */
export function modelWrite(body: unknown): Outcome<Fields> {
  if (!isPlainObject(body)) return INVALID;
  const verdict = new Verdict();
  if (Object.keys(body).some((key) => !WRITABLE.has(key))) verdict.fail();
  const fields: Fields = {
    name: name(body.name, verdict) ?? '',
    description: Object.hasOwn(body, 'description') ? (description(body.description, verdict) ?? '') : '',
    tags: Object.hasOwn(body, 'tags') ? (tags(body.tags, verdict, true) ?? []) : [],
    attributes: Object.hasOwn(body, 'attributes')
      ? ((attributeMap(body.attributes, verdict, { nullRemoves: false, maxKeys: 20 }) ??
          {}) as Fields['attributes'])
      : {},
  };
  return verdict.outcome(fields);
}

/** `PATCH /items/{id}` bodies (RFC 7396) applied to `current`: the merged fields, or 422. */
export function modelPatch(current: Fields, body: unknown): Outcome<Fields> {
  if (!isPlainObject(body)) return INVALID;
  const verdict = new Verdict();
  if (Object.keys(body).some((key) => !WRITABLE.has(key))) verdict.fail();
  const next: Fields = { ...current, attributes: { ...current.attributes } };
  if (Object.hasOwn(body, 'name')) next.name = name(body.name, verdict) ?? next.name;
  if (Object.hasOwn(body, 'description')) {
    next.description = body.description === null ? '' : (description(body.description, verdict) ?? '');
  }
  if (Object.hasOwn(body, 'tags'))
    next.tags = body.tags === null ? [] : (tags(body.tags, verdict, true) ?? []);
  if (Object.hasOwn(body, 'attributes')) {
    if (body.attributes === null) next.attributes = {};
    else {
      const changes = attributeMap(body.attributes, verdict, { nullRemoves: true, maxKeys: undefined }) ?? {};
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) delete next.attributes[key];
        else next.attributes[key] = value;
      }
    }
  }
  if (Object.keys(next.attributes).length > 20) verdict.mergeProblems++;
  return verdict.outcome(next);
}

/** Whether two sets of fields differ (a write that changes nothing keeps `version` and `updatedAt`). */
export function fieldsDiffer(a: Fields, b: Fields): boolean {
  if (a.name !== b.name || a.description !== b.description) return true;
  if (a.tags.length !== b.tags.length || a.tags.some((tag, i) => tag !== b.tags[i])) return true;
  const keys = Object.keys(a.attributes);
  if (keys.length !== Object.keys(b.attributes).length) return true;
  return keys.some((key) => !Object.hasOwn(b.attributes, key) || a.attributes[key] !== b.attributes[key]);
}

export interface Filter {
  tags?: string[];
  attributes?: Record<string, AttributeValue>;
}

function filter(value: unknown, verdict: Verdict): Filter | undefined {
  if (!isPlainObject(value)) return verdict.fail();
  if (Object.keys(value).some((key) => key !== 'tags' && key !== 'attributes')) verdict.fail();
  const out: Filter = {};
  if (Object.hasOwn(value, 'tags')) out.tags = tags(value.tags, verdict, false) ?? [];
  if (Object.hasOwn(value, 'attributes')) {
    const attributes =
      attributeMap(value.attributes, verdict, { nullRemoves: false, maxKeys: 20, filter: true }) ?? {};
    out.attributes = attributes as Record<string, AttributeValue>;
  }
  return out;
}

const integerIn = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

function queryText(value: unknown, max: number, verdict: Verdict): string | undefined {
  if (typeof value !== 'string') return verdict.fail();
  const length = codePoints(value.trim());
  return length >= 1 && length <= max ? value : verdict.fail();
}

export interface RetrieveInput {
  topK: number;
  minScore: number;
  filter: Filter | undefined;
}

/** `POST /retrieve` bodies. */
export function modelRetrieve(body: unknown): Outcome<RetrieveInput> {
  if (!isPlainObject(body)) return INVALID;
  const verdict = new Verdict();
  const known = new Set(['query', 'topK', 'filter', 'minScore']);
  if (Object.keys(body).some((key) => !known.has(key))) verdict.fail();
  queryText(body.query, 500, verdict);
  const topK = Object.hasOwn(body, 'topK') ? body.topK : 5;
  if (!integerIn(topK, 1, 50)) verdict.fail();
  const minScore = Object.hasOwn(body, 'minScore') ? body.minScore : 0;
  // "number ≥ 0": Infinity (a JSON literal such as 1e999) is not settled by the contract.
  if (minScore === Number.POSITIVE_INFINITY) verdict.reserved = true;
  else if (typeof minScore !== 'number' || !(minScore >= 0)) verdict.fail();
  const f = Object.hasOwn(body, 'filter') ? filter(body.filter, verdict) : undefined;
  return verdict.outcome({ topK: topK as number, minScore: minScore as number, filter: f });
}

export interface GenerateInput {
  topK: number;
  filter: Filter | undefined;
}

/** `POST /generate` bodies. */
export function modelGenerate(body: unknown): Outcome<GenerateInput> {
  if (!isPlainObject(body)) return INVALID;
  const verdict = new Verdict();
  const known = new Set(['query', 'topK', 'filter', 'maxTokens', 'temperature']);
  if (Object.keys(body).some((key) => !known.has(key))) verdict.fail();
  queryText(body.query, 2000, verdict);
  const topK = Object.hasOwn(body, 'topK') ? body.topK : 5;
  if (!integerIn(topK, 1, 20)) verdict.fail();
  if (Object.hasOwn(body, 'maxTokens') && !integerIn(body.maxTokens, 1, 2048)) verdict.fail();
  const temperature = Object.hasOwn(body, 'temperature') ? body.temperature : 0;
  if (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 1)) verdict.fail();
  const f = Object.hasOwn(body, 'filter') ? filter(body.filter, verdict) : undefined;
  return verdict.outcome({ topK: topK as number, filter: f });
}

/** `item_id`: a positive decimal integer within the safe range, nothing else (§4). */
export function modelItemId(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(segment)) return undefined;
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** `limit`: 1–100; leading zeros, signs, spaces or `.0` are not settled by the contract. */
export function modelLimit(value: string | undefined): Outcome<number> {
  if (value === undefined) return valid(100);
  if (/^(?:[1-9][0-9]?|100)$/.test(value)) return valid(Number(value));
  const loose = /^\s*\+?0*([0-9]+)(?:\.0*)?\s*$/.exec(value)?.[1];
  if (loose !== undefined && Number(loose) >= 1 && Number(loose) <= 100) return EITHER;
  return INVALID;
}

/** Does the item satisfy the filter (§5)? */
export function matchesFilter(item: Fields, f: Filter | undefined): boolean {
  if (!f) return true;
  if (f.tags && !f.tags.every((tag) => item.tags.includes(tag))) return false;
  for (const [key, value] of Object.entries(f.attributes ?? {})) {
    if (!Object.hasOwn(item.attributes, key) || item.attributes[key] !== value) return false;
  }
  return true;
}
