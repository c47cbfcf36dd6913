// The generator's errors. Messages here are for logs only: the HTTP layer answers with fixed messages, never these.

/** The base of the generator's errors: it failed or answered something unusable (the service answers 502). */
export class GeneratorError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GeneratorError';
  }
}

/** The generator is throttled or briefly unavailable (503 with `Retry-After`). */
export class GeneratorUnavailableError extends GeneratorError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GeneratorUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The generator did not answer within its time limit (504). */
export class GeneratorTimeoutError extends GeneratorError {
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GeneratorTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
