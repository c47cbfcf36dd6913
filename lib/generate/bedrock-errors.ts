import { awsFailure, errorName } from '../aws/errors.ts';
import { GeneratorError, GeneratorTimeoutError, GeneratorUnavailableError } from './errors.ts';

const DEFAULT_RETRY_AFTER_SECONDS = 1;

export interface FailedCall {
  /** What `client.send` threw. */
  error: unknown;
  /** The error of the last attempt the SDK made, when one failed with a reply. */
  lastAttemptError: unknown;
  /** Whether the generator's own time limit aborted the call. */
  aborted: boolean;
  timeoutMs: number;
}

/** Throttled, or Bedrock says it (or the model) is briefly unavailable. */
const isUnavailable = (error: unknown): error is Error => {
  const failure = awsFailure(error);
  return failure === 'throttled' || failure === 'unavailable';
};

/** Seconds from a `Retry-After: <seconds>` header on the SDK error's reply, else a short default. */
function retryAfterSeconds(error: Error): number {
  const headers = (error as { $response?: { headers?: Record<string, string | undefined> } }).$response
    ?.headers;
  const key = Object.keys(headers ?? {}).find((name) => name.toLowerCase() === 'retry-after');
  const value = key === undefined ? undefined : headers?.[key]?.trim();
  const seconds = value !== undefined && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(seconds) && seconds > 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS;
}

/**
 * Maps a failed Converse call to the generator's errors: throttled or unavailable → unavailable,
 * time-out or abort → time-out, anything else → GeneratorError. Provider messages stay in `cause`.
 */
export function toGeneratorError({ error, lastAttemptError, aborted, timeoutMs }: FailedCall): Error {
  // The time limit can run out while the SDK waits to retry a throttled call: that is still throttling.
  const source = aborted && isUnavailable(lastAttemptError) ? lastAttemptError : error;
  const name = errorName(source) ?? 'UnknownError';
  if (isUnavailable(source)) {
    return new GeneratorUnavailableError(`Bedrock is unavailable (${name})`, retryAfterSeconds(source), {
      cause: source,
    });
  }
  if (aborted || awsFailure(source) === 'timeout') {
    return new GeneratorTimeoutError(`Bedrock did not answer within ${timeoutMs} ms (${name})`, timeoutMs, {
      cause: source,
    });
  }
  return new GeneratorError(`Bedrock Converse failed (${name})`, { cause: source });
}
