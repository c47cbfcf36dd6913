import { assertIsJwks, type Jwks } from 'aws-jwt-verify/jwk';
import * as v from 'valibot';
import { ConfigError } from './errors.ts';

function parseJwks(text: string): Jwks {
  const jwks: Parameters<typeof assertIsJwks>[0] = JSON.parse(text);
  assertIsJwks(jwks);
  return jwks;
}

/** An optional variable: unset and empty mean the same (serverless.yml passes '' for "not on this stage"). */
const optionalVar = <T extends v.GenericSchema<string, unknown>>(schema: T) =>
  v.optional(v.union([v.literal(''), schema], (issue) => issue.issues?.at(-1)?.message ?? 'is invalid'));

const JwksText = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return parseJwks(dataset.value);
    } catch {
      addIssue({ message: 'must be a JWKS document' });
      return NEVER;
    }
  }),
);

const EnvSchema = v.object(
  {
    AWS_REGION: v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region')),
    TABLE_NAME: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a table name')),
    COGNITO_USER_POOL_ID: v.pipe(
      v.string(),
      v.regex(/^[a-z]{2}(-[a-z]+)+-\d_[A-Za-z0-9]+$/, 'must be a user pool id'),
    ),
    COGNITO_CLIENT_ID: v.pipe(v.string(), v.regex(/^[A-Za-z0-9]{1,128}$/, 'must be an app client id')),
    CURSOR_KEY: v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters')),
    DYNAMODB_ENDPOINT: optionalVar(v.pipe(v.string(), v.url('must be a URL'))),
    LOCAL_JWKS: optionalVar(JwksText),
    GENERATOR: optionalVar(v.picklist(['extractive', 'bedrock'], 'must be extractive or bedrock')),
    BEDROCK_MODEL_ID: optionalVar(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9.:/_-]{1,256}$/, 'must be a model id')),
    ),
    BEDROCK_ENDPOINT: optionalVar(v.pipe(v.string(), v.url('must be a URL'))),
    CACHE_MAX_AGE: optionalVar(
      v.pipe(
        v.string(),
        v.regex(/^(0|[1-9][0-9]{0,7})$/, 'must be a whole number of seconds'),
        v.transform(Number),
      ),
    ),
    GENERATOR_TIMEOUT_MS: optionalVar(
      v.pipe(v.string(), v.regex(/^[1-9][0-9]{2,4}$/, 'must be 100-99999 milliseconds'), v.transform(Number)),
    ),
    INDEX_CONCURRENCY: optionalVar(
      v.pipe(
        v.string(),
        v.regex(/^([1-9][0-9]?|[1-4][0-9]{2}|50[0-9]|51[0-2])$/, 'must be 1-512'),
        v.transform(Number),
      ),
    ),
    INDEX_WRITES_PER_TRANSACTION: optionalVar(
      v.pipe(v.string(), v.regex(/^([1-9][0-9]?|100)$/, 'must be 1-100'), v.transform(Number)),
    ),
  },
  (issue) => (issue.received === 'undefined' ? 'is required' : 'must be an object'),
);

export type GeneratorConfig = Readonly<
  | { kind: 'extractive' }
  | { kind: 'bedrock'; region: string; modelId: string; endpoint: string | undefined; timeoutMs: number }
>;

export type Config = Readonly<{
  region: string;
  generator: GeneratorConfig;
  tableName: string;
  dynamodbEndpoint: string | undefined;
  cursorKey: string;
  /** Seconds a public GET's response may be cached when made without `Authorization` (contract §4.1). */
  cacheMaxAge: number;
  /** The stream consumer's requests in flight (the indexer's `concurrency`; unset: its default). */
  indexConcurrency: number | undefined;
  /** Doc records and term homes the stream consumer writes in one transaction (the indexer's `writesPerTransaction`; unset: 1). */
  indexWritesPerTransaction: number | undefined;
  auth: Readonly<{ userPoolId: string; clientId: string; jwks: Jwks | undefined }>;
}>;

/** Parses the environment into a frozen configuration, or throws naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = v.safeParse(EnvSchema, env);
  if (!result.success) {
    throw new ConfigError(
      result.issues.map((issue) => `${v.getDotPath(issue) ?? 'environment'} ${issue.message}`),
    );
  }
  const e = result.output;
  const undefinedIfBlank = <T>(value: T | '' | undefined): T | undefined =>
    value === '' ? undefined : value;
  let generator: GeneratorConfig = { kind: 'extractive' };
  if (e.GENERATOR === 'bedrock') {
    const modelId = undefinedIfBlank(e.BEDROCK_MODEL_ID);
    if (!modelId) throw new ConfigError(['BEDROCK_MODEL_ID is required when GENERATOR is bedrock']);
    generator = {
      kind: 'bedrock',
      region: e.AWS_REGION,
      modelId,
      endpoint: undefinedIfBlank(e.BEDROCK_ENDPOINT),
      timeoutMs: undefinedIfBlank(e.GENERATOR_TIMEOUT_MS) ?? 20_000,
    };
  }
  return Object.freeze({
    region: e.AWS_REGION,
    generator: Object.freeze(generator),
    tableName: e.TABLE_NAME,
    dynamodbEndpoint: undefinedIfBlank(e.DYNAMODB_ENDPOINT),
    cursorKey: e.CURSOR_KEY,
    cacheMaxAge: undefinedIfBlank(e.CACHE_MAX_AGE) ?? 0,
    indexConcurrency: undefinedIfBlank(e.INDEX_CONCURRENCY),
    indexWritesPerTransaction: undefinedIfBlank(e.INDEX_WRITES_PER_TRANSACTION),
    auth: Object.freeze({
      userPoolId: e.COGNITO_USER_POOL_ID,
      clientId: e.COGNITO_CLIENT_ID,
      jwks: undefinedIfBlank(e.LOCAL_JWKS),
    }),
  });
}

let cached: Config | undefined;

/** The process's configuration, parsed from `process.env` once (at cold start) and frozen. */
export function getConfig(): Config {
  cached ??= loadConfig(process.env);
  return cached;
}
