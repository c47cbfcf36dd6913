// The one way the service recognises an AWS SDK failure: by the error's `name` (the SDK's exception name), its
// Node `code` (network errors) and the SDK's `$fault`. Never `instanceof`: a bundle can hold two copies of an
// exception class, and network and time-out errors have no SDK class at all.

/** What a failed AWS call means for its caller: worth a later retry, and how it reads over HTTP. */
export type AwsFailure = 'throttled' | 'unavailable' | 'unreachable' | 'timeout';

const BY_NAME: Readonly<Record<string, AwsFailure>> = {
  ProvisionedThroughputExceededException: 'throttled',
  ThrottlingException: 'throttled',
  RequestLimitExceeded: 'throttled',
  LimitExceededException: 'throttled',
  TransactionConflictException: 'throttled',
  ServiceUnavailableException: 'unavailable',
  ModelNotReadyException: 'unavailable',
  // SDK time-outs and aborts, and Bedrock's own "the model took too long".
  TimeoutError: 'timeout',
  RequestTimeout: 'timeout',
  AbortError: 'timeout',
  ModelTimeoutException: 'timeout',
};
const BY_CODE: Readonly<Record<string, AwsFailure>> = {
  ETIMEDOUT: 'timeout',
  ECONNREFUSED: 'unreachable',
  ECONNRESET: 'unreachable',
  EPIPE: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENOTFOUND: 'unreachable',
  EAI_AGAIN: 'unreachable',
};

/** The error's name (an SDK exception's name is its type: `ConditionalCheckFailedException`), if it is an Error. */
export const errorName = (error: unknown): string | undefined =>
  error instanceof Error ? error.name : undefined;

/** True when `error` is the named SDK exception. */
export const isAwsError = (error: unknown, name: string): boolean => errorName(error) === name;

/**
 * Classifies a failed AWS call by its name or network code: throttled, unavailable (the service said so),
 * unreachable (the connection failed) or timed out; undefined for anything else.
 */
export function awsFailure(error: unknown): AwsFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const byCode = typeof code === 'string' ? BY_CODE[code] : undefined;
  const byName = BY_NAME[error.name];
  return byName === 'timeout' || byCode === 'timeout' ? 'timeout' : (byName ?? byCode);
}

/** True when the service answered with a server-side fault (a 5xx of its own). */
export const isServerFault = (error: unknown): boolean =>
  error instanceof Error && (error as { $fault?: unknown }).$fault === 'server';
