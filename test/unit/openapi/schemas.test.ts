import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  BadGatewayError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  GatewayTimeoutError,
  InternalServerError,
  PayloadTooLargeError,
  PreconditionFailedError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../lib/http/errors.ts';
import { toHttpError } from '../../../lib/http/to-http-error.ts';
import { ItemNotFoundError } from '../../../lib/items/errors.ts';
import { buildOpenApiDocument } from '../../../lib/openapi/document.ts';
import { ErrorSchema, ItemNotFoundSchema, OpenApiDocumentSchema } from '../../../lib/openapi/schemas.ts';

describe('the error schemas of the document', () => {
  it('describe every body the error model produces', () => {
    const errors = [
      new BadRequestError('Request body is not valid JSON'),
      new UnauthorizedError(false),
      new UnauthorizedError(true),
      new ForbiddenError(),
      new ConflictError(),
      new PreconditionFailedError(),
      new PayloadTooLargeError(65_536),
      new UnsupportedMediaTypeError(['application/json']),
      new ValidationError([{ path: 'tags.2', message: 'must be 1-50 characters of a-z, 0-9 and -' }]),
      new TooManyRequestsError(1),
      new InternalServerError(new Error('secret')),
      new BadGatewayError(),
      new ServiceUnavailableError(2),
      new GatewayTimeoutError(),
    ];
    for (const error of errors) expect(v.safeParse(ErrorSchema, error.toJSON()).success).toBe(true);
  });

  it('pins the 404 body to exactly {"error":"Item not found"}', () => {
    expect(v.parse(ItemNotFoundSchema, toHttpError(new ItemNotFoundError(7)).toJSON())).toStrictEqual({
      error: 'Item not found',
    });
    expect(v.safeParse(ItemNotFoundSchema, { error: 'Not found' }).success).toBe(false);
  });

  it('describe the document GET /openapi.json answers', () => {
    expect(v.safeParse(OpenApiDocumentSchema, buildOpenApiDocument()).success).toBe(true);
  });
});
