import { BedrockRuntimeServiceException } from '@aws-sdk/client-bedrock-runtime';
import { GeneratorError, GeneratorTimeoutError, GeneratorUnavailableError } from './errors.ts';

const UNAVAILABLE = new Set(['ThrottlingException', 'ServiceUnavailableException', 'ModelNotReadyException']);
// SDK time-outs and aborts, and Bedrock's own "the model took too long".
const TIMED_OUT = new Set(['TimeoutError', 'AbortError', 'ModelTimeoutException']);
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

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : 'UnknownError';
}

/** Seconds from a `Retry-After: <seconds>` header on the reply, else a short default. */
function retryAfterSeconds(error: unknown): number {
  if (!(error instanceof BedrockRuntimeServiceException)) return DEFAULT_RETRY_AFTER_SECONDS;
  const headers = error.$response?.headers ?? {};
  const key = Object.keys(headers).find((name) => name.toLowerCase() === 'retry-after');
  const value = key === undefined ? undefined : headers[key]?.trim();
  const seconds = value !== undefined && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(seconds) && seconds > 0 ? seconds : DEFAULT_RETRY_AFTER_SECONDS;
}

/**
 * Maps a failed Converse call to the generator's errors: throttled or unavailable → unavailable,
 * time-out or abort → time-out, anything else → GeneratorError. Provider messages stay in `cause`.
 */
export function toGeneratorError({ error, lastAttemptError, aborted, timeoutMs }: FailedCall): Error {
  // The time limit can run out while the SDK waits to retry a throttled call: that is still throttling.
  const source = aborted && UNAVAILABLE.has(nameOf(lastAttemptError)) ? lastAttemptError : error;
  const name = nameOf(source);
  if (UNAVAILABLE.has(name)) {
    return new GeneratorUnavailableError(`Bedrock is unavailable (${name})`, retryAfterSeconds(source), {
      cause: source,
    });
  }
  if (aborted || TIMED_OUT.has(name)) {
    return new GeneratorTimeoutError(`Bedrock did not answer within ${timeoutMs} ms (${name})`, timeoutMs, {
      cause: source,
    });
  }
  return new GeneratorError(`Bedrock Converse failed (${name})`, { cause: source });
}
