import { TokenClaimError } from '../auth/verifier.ts';
import { ConfigError } from '../config.ts';
import { GeneratorError, GeneratorTimeoutError, GeneratorUnavailableError } from '../generate/errors.ts';
import {
  BadGatewayError,
  ConflictError,
  GatewayTimeoutError,
  HttpError,
  InternalServerError,
  NotFoundError,
  PreconditionFailedError,
  ServiceUnavailableError,
  ValidationError,
} from '../http-errors.ts';
import { IdempotencyInProgressError, IdempotencyKeyReusedError } from '../idempotency/errors.ts';
import { InvalidCursorError, ItemNotFoundError, VersionConflictError } from '../items/errors.ts';
import { WriteContentionError } from '../items/repository.ts';

const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'TransactionConflictException',
]);
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TIMEOUTS = new Set(['TimeoutError', 'RequestTimeout', 'ETIMEDOUT']);

/** The one place where every error becomes the contract's status and body. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof ItemNotFoundError) return new NotFoundError('Item not found');
  if (error instanceof VersionConflictError) return new PreconditionFailedError();
  if (error instanceof InvalidCursorError) {
    return new ValidationError([{ path: 'query.cursor', message: 'is not a cursor this service issued' }]);
  }
  if (error instanceof IdempotencyInProgressError) return new ConflictError(error.message);
  if (error instanceof IdempotencyKeyReusedError) {
    return new ValidationError([
      { path: 'header.Idempotency-Key', message: 'was used with a different request body' },
    ]);
  }
  if (error instanceof WriteContentionError) return new ServiceUnavailableError(1, error);
  if (error instanceof GeneratorTimeoutError) return new GatewayTimeoutError(error);
  if (error instanceof GeneratorUnavailableError)
    return new ServiceUnavailableError(error.retryAfterSeconds, error);
  if (error instanceof GeneratorError) return new BadGatewayError(error);
  if (error instanceof TokenClaimError || error instanceof ConfigError) return new InternalServerError(error);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const fault = (error as { $fault?: unknown }).$fault;
    if (TIMEOUTS.has(error.name) || code === 'ETIMEDOUT') return new GatewayTimeoutError(error);
    if (THROTTLED.has(error.name)) return new ServiceUnavailableError(1, error);
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return new ServiceUnavailableError(2, error);
    if (fault === 'server') return new ServiceUnavailableError(1, error);
  }
  return new InternalServerError(error);
}
