// The idempotency store's errors; lib/http/to-http-error.ts says what each answers over HTTP.

/** The base of the idempotency store's errors. */
export class IdempotencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdempotencyError';
  }
}

/** The first request with this Idempotency-Key is still being processed (→ 409). */
export class IdempotencyInProgressError extends IdempotencyError {
  constructor() {
    super('A request with this Idempotency-Key is still in progress');
    this.name = 'IdempotencyInProgressError';
  }
}

/** The Idempotency-Key was used before with a different body (→ 422). */
export class IdempotencyKeyReusedError extends IdempotencyError {
  constructor() {
    super('This Idempotency-Key was used with a different request body');
    this.name = 'IdempotencyKeyReusedError';
  }
}
