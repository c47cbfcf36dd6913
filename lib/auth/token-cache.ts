import type { Caller } from './caller.ts';

/**
 * Tokens that passed every check, by their exact text, until their `exp` — what API Gateway's authorizer cache does
 * with a token's policy. A token differing in any character (another signature, a tampered claim) is another key and
 * is verified in full; a failed verification is never stored.
 */
export interface VerifiedTokenCache {
  /** The caller of a token verified before, while `nowSeconds` is not past its `exp`; an expired entry is dropped. */
  get(token: string, nowSeconds: number): Caller | undefined;
  /** Remembers a token that passed every check, with its caller and `exp` (seconds). */
  set(token: string, caller: Caller, exp: number): void;
  /** How many tokens are held (at most `maxEntries`). */
  readonly size: number;
}

/** A verified-token cache holding at most `maxEntries` tokens; the least recently used leaves first. */
export function createVerifiedTokenCache(maxEntries: number): VerifiedTokenCache {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const entries = new Map<string, { caller: Caller; exp: number }>();
  return {
    get(token, nowSeconds) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      entries.delete(token);
      // The same rule as aws-jwt-verify: expired once `exp` is in the past.
      if (entry.exp < nowSeconds) return undefined;
      entries.set(token, entry);
      return entry.caller;
    },
    set(token, caller, exp) {
      if (maxEntries <= 0) return;
      entries.delete(token);
      while (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
      entries.set(token, {
        caller: Object.freeze({ ...caller, groups: Object.freeze([...caller.groups]) }),
        exp,
      });
    },
    get size() {
      return entries.size;
    },
  };
}
