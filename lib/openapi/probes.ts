/**
 * Reads JSON Schema keywords back from opaque valibot `check` and `custom` predicates.
 *
 * A `v.check` is a plain function, so its bound is not data the converter can see. Each probe runs the predicate
 * on inputs of known shape, finds where its answer changes, and confirms the answer agrees at other points and
 * for other characters. A predicate that does not behave like one of these keywords gives `undefined`, and the
 * caller refuses to build the document rather than silently dropping a rule.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { MAX_BODY_BYTES } from '../http/types.ts';

/** A predicate under test; a probe that throws counts as a refusal. */
export type Predicate = (input: unknown) => boolean;

/** The JSON keywords a probe found, e.g. `{ minLength: 1 }`. */
export type Keywords = JsonSchema;
type TypeName = Extract<NonNullable<JsonSchema['type']>, string>;

/** No longer string fits in a request body, so a bound past it could never apply. */
const STRING_LIMIT = MAX_BODY_BYTES;
/** Far above any count in the contract (20 tags, 20 attributes). */
const COUNT_LIMIT = 1 << 10;
/** Keys that prototype-pollution checks refuse; only the ones the predicate really refuses are reported. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

const safely =
  (test: Predicate): Predicate =>
  (input) => {
    try {
      return test(input);
    } catch {
      return false;
    }
  };

/**
 * Where `pass` first differs from `pass(0)`, searching 1, 2, 4, … then bisecting; assumes one step, which the
 * caller verifies. Undefined when the answer never changes up to `limit`.
 */
function findStep(pass: (n: number) => boolean, limit: number): number | undefined {
  const start = pass(0);
  let high = 1;
  while (high <= limit && pass(high) === start) high *= 2;
  if (high > limit) return undefined;
  let low = high === 1 ? 0 : high / 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (pass(middle) === start) low = middle;
    else high = middle;
  }
  return high;
}

/** Points around the step and spread below twice its size, where a one-step predicate gives the expected answer. */
const samplePoints = (step: number): number[] => {
  const points = new Set([0, 1, 2, step - 2, step - 1, step, step + 1, step + 2, 2 * step]);
  for (let n = 4; n < 2 * step; n *= 4) points.add(n);
  return [...points].filter((n) => n >= 0);
};

/** True when `pass` has exactly one step, at `step`, as far as the sample points show. */
const isOneStep = (pass: (n: number) => boolean, step: number, points = samplePoints(step)): boolean => {
  const before = pass(0);
  return points.every((n) => pass(n) === (n < step ? before : !before));
};

/** Bounds on a string's length in code points, which is what JSON Schema's `minLength`/`maxLength` count. */
export function stringLengthKeywords(predicate: Predicate): Keywords | undefined {
  const test = safely(predicate);
  // An astral character is one code point but two UTF-16 units: a check on `.length` gives itself away.
  const units = ['a', 'é', '😀', 'Z'];
  const pass = (n: number, unit = 'a') => test(unit.repeat(n));
  const step = findStep(pass, STRING_LIMIT);
  if (step === undefined) return undefined;
  const oneStep =
    isOneStep(pass, step, [...samplePoints(step), STRING_LIMIT]) &&
    units.every((unit) => isOneStep((n) => pass(n, unit), step));
  if (!oneStep) return undefined;
  return pass(0) ? { maxLength: step - 1 } : { minLength: step };
}

const objectWithKeys = (count: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'x']));

/** Bounds on an object's number of properties, or the property names it refuses. */
export function objectKeywords(predicate: Predicate): Keywords | undefined {
  const test = safely(predicate);
  const pass = (n: number) => test(objectWithKeys(n));
  const step = findStep(pass, COUNT_LIMIT);
  if (step !== undefined) {
    if (!isOneStep(pass, step, [...samplePoints(step), COUNT_LIMIT])) return undefined;
    return pass(0) ? { maxProperties: step - 1 } : { minProperties: step };
  }
  if (!pass(0) || !pass(COUNT_LIMIT)) return undefined;
  // Object.fromEntries defines `__proto__` as an own property, as JSON.parse does.
  const refused = PROTOTYPE_KEYS.filter((key) => !test(Object.fromEntries([[key, 'x']])));
  if (refused.length === 0) return undefined;
  return { propertyNames: { not: { enum: refused } } };
}

/** `uniqueItems` when the predicate accepts exactly the arrays without repeated items. */
export function arrayKeywords(predicate: Predicate): Keywords | undefined {
  const test = safely(predicate);
  const accepted = [[], ['a'], ['a', 'b'], ['b', 'a'], ['a', 'b', 'c']];
  const refused = [
    ['a', 'a'],
    ['a', 'b', 'a'],
    ['c', 'b', 'c'],
  ];
  return accepted.every(test) && !refused.some(test) ? { uniqueItems: true } : undefined;
}

const JSON_SAMPLES: readonly (readonly [TypeName, readonly unknown[]])[] = [
  ['object', [{}, { a: 1 }]],
  ['array', [[], [1]]],
  ['string', ['', 'a']],
  ['number', [0, 1.5]],
  ['boolean', [true, false]],
  ['null', [null]],
];

/** The JSON types a `v.custom` type guard admits, e.g. `{ type: 'object' }` for a plain-object check. */
export function typeGuardKeywords(predicate: Predicate): Keywords | undefined {
  const test = safely(predicate);
  const types: TypeName[] = [];
  for (const [type, samples] of JSON_SAMPLES) {
    const answers = samples.map(test);
    if (answers.every(Boolean)) types.push(type);
    else if (answers.some(Boolean)) return undefined;
  }
  const [only, ...more] = types;
  if (only === undefined) return undefined;
  return { type: more.length === 0 ? only : types };
}
