// Errors of lib/'s top-level modules (the configuration); each domain folder has an errors.ts of its own.

/** Thrown at cold start when the environment is not a valid configuration; names every bad variable. */
export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}
