import { describe, expect, it } from 'vitest';
import { authorize, type Operation, POLICY } from '../../../lib/auth/policy.ts';
import { ForbiddenError, UnauthorizedError } from '../../../lib/http/errors.ts';

const caller = (...groups: string[]) => ({ sub: 'u', username: 'u', groups });

// The contract's role table (§3), row by row.
const TABLE: Record<Operation, 'anyone' | string[]> = {
  listItems: 'anyone',
  getItem: 'anyone',
  createItem: ['editor', 'admin'],
  replaceItem: ['editor', 'admin'],
  patchItem: ['editor', 'admin'],
  deleteItem: ['admin'],
  retrieve: ['reader', 'editor', 'admin'],
  generate: ['reader', 'editor', 'admin'],
  openapi: 'anyone',
};

describe('authorize', () => {
  it('covers every operation of the contract', () => {
    expect(Object.keys(POLICY).sort()).toStrictEqual(Object.keys(TABLE).sort());
  });

  for (const [operation, allowed] of Object.entries(TABLE) as [Operation, 'anyone' | string[]][]) {
    if (allowed === 'anyone') {
      it(`lets anyone call ${operation}`, () => {
        expect(() => authorize(operation, undefined)).not.toThrow();
        expect(() => authorize(operation, caller())).not.toThrow();
      });
      continue;
    }
    it(`${operation}: 401 without a caller, 403 without a permitted role, allowed for ${allowed.join(', ')}`, () => {
      expect(() => authorize(operation, undefined)).toThrow(UnauthorizedError);
      expect(() => authorize(operation, caller())).toThrow(ForbiddenError);
      for (const role of ['reader', 'editor', 'admin']) {
        if (allowed.includes(role)) expect(() => authorize(operation, caller(role))).not.toThrow();
        else expect(() => authorize(operation, caller(role))).toThrow(ForbiddenError);
      }
    });
  }

  it('matches roles only as whole strings', () => {
    for (const group of ['Admin', 'superadmin', 'admin ', 'ADMIN', 'admins']) {
      expect(() => authorize('deleteItem', caller(group))).toThrow(ForbiddenError);
    }
  });
});
