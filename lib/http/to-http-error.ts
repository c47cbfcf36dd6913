import { CredentialsRequiredError, RoleRequiredError } from '../auth/errors.ts';
import { type AwsFailure, awsFailure, isServerFault } from '../aws/errors.ts';
import { InvalidInputError } from '../errors.ts';
import { GeneratorError, GeneratorTimeoutError, GeneratorUnavailableError } from '../generate/errors.ts';
import { IdempotencyInProgressError, IdempotencyKeyReusedError } from '../idempotency/errors.ts';
import {
  InvalidCursorError,
  ItemNotFoundError,
  VersionConflictError,
  WriteContentionError,
} from '../items/errors.ts';
import {
  BadGatewayError,
  ConflictError,
  ForbiddenError,
  GatewayTimeoutError,
  HttpError,
  InternalServerError,
  NotFoundError,
  PreconditionFailedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from './errors.ts';

/** An error class, whatever its constructor's parameters. */
type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;
type ToHttp = (error: never) => HttpError;

/**
 * What each error class answers. An error is looked up by its class, then its parent classes, so the most specific
 * registered class wins; a domain's base class left out here is a bug (500).
 */
const registry = new Map<ErrorClass<Error>, ToHttp>();
const register = <E extends Error>(type: ErrorClass<E>, toHttp: (error: E) => HttpError) =>
  registry.set(type, toHttp);

register(HttpError, (error) => error);
register(CredentialsRequiredError, () => new UnauthorizedError(false));
register(RoleRequiredError, () => new ForbiddenError());
register(InvalidInputError, (error) => new ValidationError(error.problems));
register(ItemNotFoundError, () => new NotFoundError('Item not found'));
register(VersionConflictError, () => new PreconditionFailedError());
register(
  InvalidCursorError,
  () => new ValidationError([{ path: 'query.cursor', message: 'is not a cursor this service issued' }]),
);
register(WriteContentionError, (error) => new ServiceUnavailableError(1, error));
register(IdempotencyInProgressError, (error) => new ConflictError(error.message));
register(
  IdempotencyKeyReusedError,
  () =>
    new ValidationError([
      { path: 'header.Idempotency-Key', message: 'was used with a different request body' },
    ]),
);
register(GeneratorError, (error) => new BadGatewayError(error));
register(GeneratorUnavailableError, (error) => new ServiceUnavailableError(error.retryAfterSeconds, error));
register(GeneratorTimeoutError, (error) => new GatewayTimeoutError(error));

/** A failed AWS call (the database): throttled or unavailable → 503 with `Retry-After`, a time-out → 504. */
const AWS_FAILURES: Record<AwsFailure, (error: unknown) => HttpError> = {
  throttled: (error) => new ServiceUnavailableError(1, error),
  unavailable: (error) => new ServiceUnavailableError(1, error),
  unreachable: (error) => new ServiceUnavailableError(2, error),
  timeout: (error) => new GatewayTimeoutError(error),
};

/** The shape of middy's `HttpError` (and the `http-errors` package's): a status, and whether to show the message. */
interface StatusError {
  statusCode: number;
  message: string;
  expose?: unknown;
  headers?: unknown;
}

function isStatusError(error: unknown): error is StatusError {
  const statusCode: unknown = error instanceof Error ? Reflect.get(error, 'statusCode') : undefined;
  return (
    typeof statusCode === 'number' && Number.isInteger(statusCode) && statusCode >= 400 && statusCode <= 599
  );
}

/** String-valued headers of an error that carries some, such as `WWW-Authenticate`. */
function headersOf({ headers }: StatusError): Record<string, string> | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const entries = Object.entries(headers).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The registered mapping of the error's class or its nearest registered ancestor. */
function registered(error: unknown): ToHttp | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  for (let proto = Object.getPrototypeOf(error); proto !== null; proto = Object.getPrototypeOf(proto)) {
    const toHttp = registry.get(proto.constructor);
    if (toHttp) return toHttp;
  }
  return undefined;
}

/**
 * The one place where every error becomes the contract's status and body: by the registry above; then any error
 * that carries its own status (middy's middlewares throw those) keeps it; then a failed AWS call; else a 500.
 */
export function toHttpError(error: unknown): HttpError {
  const toHttp = registered(error);
  if (toHttp) return toHttp(error as never);
  if (isStatusError(error)) {
    return new HttpError(error.statusCode, error.message, {
      // A server error's message never reaches the client, whatever `expose` says (contract §1: no internals).
      expose: error.statusCode < 500 && error.expose !== false,
      headers: headersOf(error),
      cause: error,
    });
  }
  const failure = awsFailure(error) ?? (isServerFault(error) ? 'unavailable' : undefined);
  return failure ? AWS_FAILURES[failure](error) : new InternalServerError(error);
}
