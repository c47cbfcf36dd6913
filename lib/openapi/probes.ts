/**
 * Reads JSON Schema keywords back from opaque valibot `check` and `custom` predicates written inline, without their
 * bounds as data: today only lib/search/read/schema.ts's count of filter attributes and lib/search/read/where-schema.ts's
 * leaf-count guard. Every other limit is data the converter reads (valibot's actions, lib/schema/primitives.ts's
 * described checks); these probes go once those two declare theirs (`v.maxEntries`, a described guard).
 *
 * Each probe runs the predicate on inputs of known shape, finds where its answer changes, and confirms the answer
 * agrees at other points. A predicate that does not behave like one of these keywords gives `undefined`, and the
 * caller refuses to build the document rather than silently dropping a rule.
 */
import type { JsonSchema } from '@valibot/to-json-schema';

/** A predicate under test; a probe that throws counts as a refusal. */
export type Predicate = (input: unknown) => boolean;

/** The JSON keywords a probe found, e.g. `{ minLength: 1 }`. */
export type Keywords = JsonSchema;
type TypeName = Extract<NonNullable<JsonSchema['type']>, string>;

/** Far above any count in the contract (20 tags, 20 attributes). */
const COUNT_LIMIT = 1 << 10;

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

const objectWithKeys = (count: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'x']));

/** Bounds on an object's number of properties. */
export function objectKeywords(predicate: Predicate): Keywords | undefined {
  const test = safely(predicate);
  const pass = (n: number) => test(objectWithKeys(n));
  const step = findStep(pass, COUNT_LIMIT);
  if (step === undefined || !isOneStep(pass, step, [...samplePoints(step), COUNT_LIMIT])) return undefined;
  return pass(0) ? { maxProperties: step - 1 } : { minProperties: step };
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
