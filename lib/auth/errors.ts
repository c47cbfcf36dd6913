// Authentication's errors. A token that fails verification is answered 401 by the authenticate middleware, which
// keeps the reason in `cause` for the logs.

/** The base of authentication's errors. */
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
