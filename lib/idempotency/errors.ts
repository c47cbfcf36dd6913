/** The first request with this Idempotency-Key is still being processed (→ 409). */
export class IdempotencyInProgressError extends Error {
  constructor() {
    super('A request with this Idempotency-Key is still in progress');
    this.name = 'IdempotencyInProgressError';
  }
}

/** The Idempotency-Key was used before with a different body (→ 422). */
export class IdempotencyKeyReusedError extends Error {
  constructor() {
    super('This Idempotency-Key was used with a different request body');
    this.name = 'IdempotencyKeyReusedError';
  }
}
