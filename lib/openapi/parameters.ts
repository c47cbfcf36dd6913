import type { JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { IDEMPOTENCY_KEY, QUOTED_VERSION } from '../http/middleware/request-headers.ts';
import { ItemPathSchema, ListQuerySchema, MAX_PAGE_SIZE } from '../items/schema.ts';
import { parameterSchema } from './json-schema.ts';

/** `If-Match: "<version>"` (contract §4): the pattern the request-header middleware enforces. */
const IfMatchSchema = v.pipe(v.string(), v.regex(QUOTED_VERSION));
/** `Idempotency-Key`: 1–255 visible ASCII characters (contract §4), as the middleware enforces. */
const IdempotencyKeySchema = v.pipe(v.string(), v.regex(IDEMPOTENCY_KEY));

type Place = 'path' | 'query' | 'header';
interface Parameter {
  name: string;
  in: Place;
  required: boolean;
  description: string;
  schema: JsonSchema;
}

/** One parameter per property of an object schema (path or query), required as the schema says. */
function parametersOf(schema: v.GenericSchema, place: Place, descriptions: Record<string, string>) {
  const { properties = {}, required = [] } = parameterSchema(schema);
  return Object.entries(properties).map(([name, property]): Parameter => {
    if (typeof property === 'boolean') throw new Error(`The ${place} parameter ${name} has no schema`);
    const description = descriptions[name];
    if (description === undefined) throw new Error(`The ${place} parameter ${name} has no description`);
    return {
      name,
      in: place,
      required: required.includes(name) || place === 'path',
      description,
      schema: property,
    };
  });
}

const header = (name: string, schema: v.GenericSchema, description: string): Parameter => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: parameterSchema(schema),
});

/** Reusable parameters, keyed `<in>.<name>`. */
export const parameters: Record<string, Parameter> = Object.fromEntries(
  [
    ...parametersOf(ItemPathSchema, 'path', {
      item_id: "The item's id: a positive integer within JavaScript's safe range (at most 9007199254740991).",
    }),
    ...parametersOf(ListQuerySchema, 'query', {
      limit: `Page size, an integer from 1 to ${MAX_PAGE_SIZE}.`,
      cursor: 'Opaque: only as found in the `Link` header of the previous page.',
    }),
    header('If-Match', IfMatchSchema, 'Apply the change only at this version (412 otherwise), e.g. `"3"`.'),
    header(
      'If-None-Match',
      v.string(),
      'An `ETag` this client holds (or `*`): while it is still the current one, the answer is 304 with no body ' +
        '(contract §4.1).',
    ),
    header(
      'Idempotency-Key',
      IdempotencyKeySchema,
      'A repeat by the same caller with the same key and body within 24 hours returns the first response and ' +
        'creates nothing; the same key with a different body is a 422, and 409 while the first is in progress.',
    ),
  ].map((parameter) => [`${parameter.in}.${parameter.name}`, parameter]),
);
