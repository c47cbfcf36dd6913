import { fc, test } from '@fast-check/vitest';
import { createError } from '@middy/util';
import { describe, expect, it } from 'vitest';
import { CredentialsRequiredError, RoleRequiredError } from '../../../lib/auth/errors.ts';
import { InvalidInputError } from '../../../lib/errors.ts';
import {
  GeneratorError,
  GeneratorTimeoutError,
  GeneratorUnavailableError,
} from '../../../lib/generate/errors.ts';
import { HttpError, InternalServerError, ValidationError } from '../../../lib/http/errors.ts';
import { toHttpError } from '../../../lib/http/to-http-error.ts';
import {
  ItemError,
  ItemNotFoundError,
  VersionConflictError,
  WriteContentionError,
} from '../../../lib/items/errors.ts';

const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${name}: table items-prod`), { name, ...extra });
const mapped = (error: unknown) => {
  const http = toHttpError(error);
  return { status: http.statusCode, body: http.toJSON(), headers: http.headers };
};

describe('toHttpError', () => {
  it('maps domain errors to the contract', () => {
    expect(mapped(new ItemNotFoundError(3))).toStrictEqual({
      status: 404,
      body: { error: 'Item not found' },
      headers: {},
    });
    expect(mapped(new VersionConflictError(3, 1))).toStrictEqual({
      status: 412,
      body: { error: 'Precondition failed' },
      headers: {},
    });
    expect(mapped(new WriteContentionError(3))).toStrictEqual({
      status: 503,
      body: { error: 'Service unavailable' },
      headers: { 'Retry-After': '1' },
    });
  });

  it('maps missing credentials to 401, a missing role to 403, with their challenges', () => {
    expect(mapped(new CredentialsRequiredError('createItem'))).toStrictEqual({
      status: 401,
      body: { error: 'Unauthorized' },
      headers: { 'WWW-Authenticate': 'Bearer realm="items"' },
    });
    expect(mapped(new RoleRequiredError('deleteItem', ['admin']))).toStrictEqual({
      status: 403,
      body: { error: 'Forbidden' },
      headers: { 'WWW-Authenticate': 'Bearer realm="items", error="insufficient_scope"' },
    });
  });

  it('maps an invalid input to 422 with every problem as details', () => {
    const problems = [
      { path: 'name', message: 'must not be empty' },
      { path: 'tags.1', message: 'must not repeat a tag' },
    ];
    expect(mapped(new InvalidInputError(problems))).toStrictEqual({
      status: 422,
      body: { error: 'Validation failed', details: problems },
      headers: {},
    });
  });

  it('maps database throttling and outages to 503 with Retry-After, time-outs to 504', () => {
    expect(mapped(named('ProvisionedThroughputExceededException')).status).toBe(503);
    expect(mapped(named('ThrottlingException')).headers).toStrictEqual({ 'Retry-After': '1' });
    expect(mapped(named('Error', { code: 'ECONNREFUSED' })).status).toBe(503);
    expect(mapped(named('InternalServerError', { $fault: 'server' })).status).toBe(503);
    expect(mapped(named('TimeoutError'))).toStrictEqual({
      status: 504,
      body: { error: 'Gateway timeout' },
      headers: {},
    });
  });

  it('hides everything else behind a 500 without internals', () => {
    expect(mapped(named('ResourceNotFoundException'))).toStrictEqual({
      status: 500,
      body: { error: 'Internal server error' },
      headers: {},
    });
    expect(mapped('a string')).toStrictEqual({
      status: 500,
      body: { error: 'Internal server error' },
      headers: {},
    });
  });

  it('keeps HTTP errors, showing details only below 500', () => {
    const validation = new ValidationError([{ path: 'name', message: 'must be a string' }]);
    expect(toHttpError(validation)).toBe(validation);
    expect(validation.toJSON()).toStrictEqual({
      error: 'Validation failed',
      details: [{ path: 'name', message: 'must be a string' }],
    });
    expect(new InternalServerError(new Error('secret')).toJSON()).toStrictEqual({
      error: 'Internal server error',
    });
    expect(new HttpError(502, 'upstream said x').toJSON()).toStrictEqual({ error: 'Bad gateway' });
  });

  it('maps an error carrying statusCode and expose (middy’s HttpError) to its own status', () => {
    expect(mapped(createError(415, 'Unsupported Media Type'))).toStrictEqual({
      status: 415,
      body: { error: 'Unsupported Media Type' },
      headers: {},
    });
    expect(mapped(createError(400, 'secret detail', { expose: false }))).toStrictEqual({
      status: 400,
      body: { error: 'Bad Request' },
      headers: {},
    });
    expect(mapped(createError(503, 'pool exhausted'))).toStrictEqual({
      status: 503,
      body: { error: 'Service unavailable' },
      headers: {},
    });
    const withChallenge = Object.assign(createError(401, 'Unauthorized'), {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
    expect(mapped(withChallenge).headers).toStrictEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it('looks an error up by its class, then its parents: the most specific registered class wins', () => {
    expect(mapped(new GeneratorUnavailableError('busy', 4)).headers).toStrictEqual({ 'Retry-After': '4' });
    expect(mapped(new GeneratorTimeoutError('slow', 100)).status).toBe(504);
    expect(mapped(new GeneratorError('bad reply')).status).toBe(502);
    expect(mapped(new ItemError('a bug')).status).toBe(500);
  });

  test.prop([
    fc.integer({ min: 100, max: 999 }),
    fc.string({ maxLength: 30 }),
    fc.option(fc.boolean(), { nil: undefined }),
  ])('never turns an error with a 4xx or 5xx status into another status', (status, message, expose) => {
    const error = Object.assign(new Error(message), {
      statusCode: status,
      ...(expose === undefined ? {} : { expose }),
    });
    const http = toHttpError(error);
    expect(http.statusCode).toBe(status >= 400 && status <= 599 ? status : 500);
    const shown = http.toJSON().error;
    if (http.statusCode >= 500 || expose === false) expect(shown === message && message !== '').toBe(false);
  });
});
