import { STATUS_CODES } from 'node:http';
import type { FieldProblem } from '../errors.ts';

/** One problem with a request value, as a 422's `details` lists it: `path` names the field. */
export type ErrorDetail = FieldProblem;

export interface HttpErrorOptions {
  details?: readonly ErrorDetail[] | undefined;
  headers?: Record<string, string> | undefined;
  cause?: unknown;
  /** Whether the message may reach the client; by default only below 500 (middy's `expose`). */
  expose?: boolean | undefined;
}

/** Base HTTP error. `expose` follows middy's contract: by default only errors below 500 show their message. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly expose: boolean;
  readonly details: readonly ErrorDetail[] | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(statusCode: number, message: string, options: HttpErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.expose = options.expose ?? statusCode < 500;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The response body: the message when exposed, else a fixed public message for the status. */
  toJSON(): { error: string; details?: readonly ErrorDetail[] } {
    if (!this.expose) return { error: PUBLIC_MESSAGES[this.statusCode] ?? publicMessage(this.statusCode) };
    return this.details ? { error: this.message, details: this.details } : { error: this.message };
  }
}

const PUBLIC_MESSAGES: Record<number, string> = {
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

/** A status's reason phrase (`Not Found`) for a client error that hides its message; a server error's is fixed. */
const publicMessage = (statusCode: number) =>
  statusCode < 500 ? (STATUS_CODES[statusCode] ?? 'Bad request') : 'Internal server error';

const REALM = 'Bearer realm="items"';

export class BadRequestError extends HttpError {
  constructor(message = 'Bad request') {
    super(400, message);
  }
}

export class UnauthorizedError extends HttpError {
  /** `tokenPresented` adds `error="invalid_token"` to the challenge, as RFC 6750 asks. */
  constructor(tokenPresented: boolean, options: { cause?: unknown } = {}) {
    super(401, 'Unauthorized', {
      headers: { 'WWW-Authenticate': tokenPresented ? `${REALM}, error="invalid_token"` : REALM },
      cause: options.cause,
    });
  }
}

export class ForbiddenError extends HttpError {
  constructor() {
    super(403, 'Forbidden', { headers: { 'WWW-Authenticate': `${REALM}, error="insufficient_scope"` } });
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message = 'Conflict') {
    super(409, message);
  }
}

export class PreconditionFailedError extends HttpError {
  constructor() {
    super(412, 'Precondition failed');
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super(413, `Request body exceeds ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(expected: readonly string[]) {
    super(415, `Content-Type must be ${expected.join(' or ')}`);
  }
}

export class ValidationError extends HttpError {
  constructor(details: readonly ErrorDetail[]) {
    super(422, 'Validation failed', { details });
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Too many requests', { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

export class InternalServerError extends HttpError {
  constructor(cause?: unknown) {
    super(500, 'Internal server error', { cause });
  }
}

export class BadGatewayError extends HttpError {
  constructor(cause?: unknown) {
    super(502, 'Bad gateway', { cause });
  }
}

export class ServiceUnavailableError extends HttpError {
  constructor(retryAfterSeconds: number, cause?: unknown) {
    super(503, 'Service unavailable', { headers: { 'Retry-After': String(retryAfterSeconds) }, cause });
  }
}

export class GatewayTimeoutError extends HttpError {
  constructor(cause?: unknown) {
    super(504, 'Gateway timeout', { cause });
  }
}
