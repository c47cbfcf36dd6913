import { describe, expect, it } from 'vitest';
import { CredentialsRequiredError, RoleRequiredError } from '../../../lib/auth/errors.ts';
import { authorize, type Operation, POLICY } from '../../../lib/auth/policy.ts';

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
    it(`${operation}: refused without a caller and without a permitted role, allowed for ${allowed.join(', ')}`, () => {
      expect(() => authorize(operation, undefined)).toThrow(CredentialsRequiredError);
      expect(() => authorize(operation, caller())).toThrow(RoleRequiredError);
      for (const role of ['reader', 'editor', 'admin']) {
        if (allowed.includes(role)) expect(() => authorize(operation, caller(role))).not.toThrow();
        else expect(() => authorize(operation, caller(role))).toThrow(RoleRequiredError);
      }
    });
  }

  it('matches roles only as whole strings', () => {
    for (const group of ['Admin', 'superadmin', 'admin ', 'ADMIN', 'admins']) {
      expect(() => authorize('deleteItem', caller(group))).toThrow(RoleRequiredError);
    }
  });
});
