// Errors of lib/'s top-level modules (the configuration, validation); each domain folder has an errors.ts of its own.
// lib/http/to-http-error.ts says what each answers over HTTP.

/** Thrown at cold start when the environment is not a valid configuration; names every bad variable. */
export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** One problem with a value: `path` names the field (`name`, `tags.2`, `query.limit`). */
export interface FieldProblem {
  path: string;
  message: string;
}

/** A value failed its schema; `problems` lists every one (→ 422 with them as `details`). */
export class InvalidInputError extends Error {
  readonly problems: readonly FieldProblem[];

  constructor(problems: readonly FieldProblem[]) {
    super('Invalid input');
    this.name = 'InvalidInputError';
    this.problems = problems;
  }
}
