// Authentication's and authorization's errors; lib/http/to-http-error.ts says what each answers over HTTP. A token
// that fails verification is answered 401 by the authenticate middleware, which keeps the reason in `cause`.

/** The base of authentication's and authorization's errors. */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}

/** Thrown for claims aws-jwt-verify accepts but the contract refuses. */
export class TokenClaimError extends AuthError {
  constructor(message: string) {
    super(message);
    this.name = 'TokenClaimError';
  }
}

/** An operation that is not public was called without credentials (→ 401). */
export class CredentialsRequiredError extends AuthError {
  readonly operation: string;

  constructor(operation: string) {
    super(`${operation} requires credentials`);
    this.name = 'CredentialsRequiredError';
    this.operation = operation;
  }
}

/** A verified caller holds none of the roles that grant the operation (→ 403). */
export class RoleRequiredError extends AuthError {
  readonly operation: string;
  readonly allowed: readonly string[];

  constructor(operation: string, allowed: readonly string[]) {
    super(`${operation} requires one of the roles ${allowed.join(', ')}`);
    this.name = 'RoleRequiredError';
    this.operation = operation;
    this.allowed = allowed;
  }
}
