import type { Caller } from './caller.ts';
import { CredentialsRequiredError, RoleRequiredError } from './errors.ts';

export const ROLES = ['reader', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Who may call each operation: `public` (anyone) or the roles (Cognito groups) that grant it. */
export const POLICY = {
  listItems: 'public',
  getItem: 'public',
  createItem: ['editor', 'admin'],
  replaceItem: ['editor', 'admin'],
  patchItem: ['editor', 'admin'],
  deleteItem: ['admin'],
  retrieve: ['reader', 'editor', 'admin'],
  generate: ['reader', 'editor', 'admin'],
  openapi: 'public',
} as const satisfies Record<string, 'public' | readonly Role[]>;

export type Operation = keyof typeof POLICY;

/** Refuses a caller the policy does not admit: no credentials, or no permitted role. */
export function authorize(operation: Operation, caller: Caller | undefined): void {
  const allowed: 'public' | readonly string[] = POLICY[operation];
  if (allowed === 'public') return;
  if (!caller) throw new CredentialsRequiredError(operation);
  // Whole-string match only: 'Admin' or 'superadmin' is not 'admin'.
  if (!caller.groups.some((group) => allowed.includes(group)))
    throw new RoleRequiredError(operation, allowed);
}
