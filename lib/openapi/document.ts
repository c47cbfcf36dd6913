import { POLICY } from '../auth/policy.ts';
import { JSON_MEDIA_TYPE } from '../http/types.ts';
import { componentDescriptions, componentSchemaSources, generatorNotes } from './components.ts';
import { componentSchemas, SCHEMA_REF } from './json-schema.ts';
import { OPERATIONS, type OperationSpec } from './operations.ts';
import { parameters } from './parameters.ts';
import { type ErrorStatus, errorResponses, headerNames, headers, responseComponents } from './responses.ts';

/** The one security scheme: a Cognito access token as a bearer token. */
const securitySchemes = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An Amazon Cognito user pool access token (`token_use` = `access`, signed RS256, with `exp`). Its ' +
      '`cognito:groups` claim carries the roles: `reader`, `editor`, `admin`.',
  },
};

/** Statuses every operation can give: malformed headers, a token that fails verification, throttling, a bug. */
const EVERY_OPERATION: readonly ErrorStatus[] = [400, 401, 429, 500];

const schemaRef = (name: string) => ({ $ref: `${SCHEMA_REF}${name}` });
const ref = (kind: 'parameters' | 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** Who may call (from the policy) as text, and the matching security requirement. */
function access(spec: OperationSpec) {
  const allowed = POLICY[spec.operationId];
  if (allowed === 'public') {
    return {
      // `{}` first: calling without a token is allowed.
      security: [{}, { bearer: [] }],
      text: 'Who may call: anyone; the token is optional, but a presented token that fails verification is a 401.',
      statuses: EVERY_OPERATION,
    };
  }
  return {
    security: [{ bearer: [] }],
    text: `Who may call: ${allowed.join(', ')} (Cognito groups in the access token).`,
    statuses: [...EVERY_OPERATION, 403] as const,
  };
}

function requestBody({ schema, mediaTypes, example }: NonNullable<OperationSpec['body']>) {
  return {
    required: true,
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: schemaRef(schema), example }])),
  };
}

/** Response headers by reference, each under the name it is sent with. */
const headerRefs = (names: readonly (keyof typeof headers)[]) =>
  Object.fromEntries(names.map((name) => [headerNames[name] ?? name, ref('headers', name)]));

function operation(spec: OperationSpec) {
  const { security, text, statuses } = access(spec);
  const { status, description, schema, headers: successHeaders = [] } = spec.success;
  const errors = [...new Set([...statuses, ...spec.errors])].sort((a, b) => a - b);
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: `${spec.description}\n\n${text}`,
    security,
    ...(spec.parameters.length > 0 && { parameters: spec.parameters.map((name) => ref('parameters', name)) }),
    ...(spec.body && { requestBody: requestBody(spec.body) }),
    responses: {
      [status]: {
        description,
        ...(successHeaders.length > 0 && { headers: headerRefs(successHeaders) }),
        ...(schema && { content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schema) } } }),
      },
      ...(spec.notModified && {
        304: {
          description:
            'Not modified: `If-None-Match` names the current `ETag` (or is `*`, for an existing item). No body.',
          headers: headerRefs([spec.notModified, 'Cache-Control', 'Vary']),
        },
      }),
      ...Object.fromEntries(errors.map((code) => [code, ref('responses', errorResponses[code].name)])),
    },
  };
}

/**
 * The component schemas, converted from valibot, with the descriptions JSON Schema keywords cannot carry and the
 * notes for generators after them.
 */
function schemas() {
  const descriptions: Readonly<Record<string, string | undefined>> = componentDescriptions;
  const notes: Readonly<Record<string, string | undefined>> = generatorNotes;
  return Object.fromEntries(
    Object.entries(componentSchemas(componentSchemaSources)).map(([name, schema]) => {
      const parts = [descriptions[name] ?? schema.description, notes[name]].filter(
        (part) => part !== undefined,
      );
      return [name, parts.length === 0 ? schema : { ...schema, description: parts.join('\n\n') }];
    }),
  );
}

function paths() {
  const byPath: Record<string, Record<string, ReturnType<typeof operation>>> = {};
  for (const spec of OPERATIONS) byPath[spec.path] = { ...byPath[spec.path], [spec.method]: operation(spec) };
  return byPath;
}

/** Builds the service's OpenAPI 3.1 document from the handlers' valibot schemas and the role policy. */
export function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Items service',
      version: '1.0.0',
      description:
        'Items with REST CRUD, BM25 retrieval and grounded generation. Every response with a body is ' +
        '`application/json; charset=utf-8`; every error body is an object with a string `error`.',
    },
    servers: [{ url: '/', description: 'The API Gateway endpoint that serves this document.' }],
    tags: [
      { name: 'items', description: 'The item collection (contract §4).' },
      { name: 'retrieval', description: 'Search and grounded answers over the items (contract §5, §6).' },
      { name: 'document', description: 'This API description.' },
    ],
    paths: paths(),
    components: {
      schemas: schemas(),
      parameters,
      headers,
      responses: responseComponents,
      securitySchemes,
    },
  };
}

/** The document, as `buildOpenApiDocument` returns it. */
export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
