import { describe, expect, it } from 'vitest';
import { toHttpError } from '../../lib/http/to-http-error.ts';
import { HttpError, InternalServerError, ValidationError } from '../../lib/http-errors.ts';
import { ItemNotFoundError, VersionConflictError } from '../../lib/items/errors.ts';
import { WriteContentionError } from '../../lib/items/repository.ts';

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
});
