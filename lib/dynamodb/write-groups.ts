import { mapLimit } from '../concurrency.ts';

/** Actions a transaction takes at most (DynamoDB's limit). */
export const TRANSACTION_ACTIONS = 100;
/** A group's bytes at most: a quarter of DynamoDB's 4 MB a transaction, so that itemBytes' estimate stays inside. */
export const GROUP_BYTES = 1 << 20;
/**
 * Groups in flight at once. Groups pay off on DynamoDB Local (packGroups), which runs a table's writes one at a time:
 * two keep it busy, one running while the next travels, and none waits in its queue long enough to time out.
 */
export const GROUPS_IN_FLIGHT = 2;

/**
 * About the bytes DynamoDB counts for `value` as an attribute value, from above: strings and binaries their length,
 * a number 21 (its most), a map or list 3 and 1 an element, each name its length (the developer guide, "Item sizes").
 */
export function itemBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'number') return 21;
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + itemBytes(member), 0);
  if (Array.isArray(value)) return value.reduce((sum: number, element) => sum + 1 + itemBytes(element), 3);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).reduce(
      (sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + itemBytes(element),
      3,
    );
  return 1;
}

/**
 * Writes packed, in order, into groups a transaction each: at most `most` members, TRANSACTION_ACTIONS actions and
 * GROUP_BYTES a group (`actions` gives a member's). A member too big for a group with others is a group alone.
 *
 * Why groups: DynamoDB Local commits each write on its own, one at a time a table, and a transaction's writes in one
 * commit, so writes in transactions of 50 run 3-5 times the pace of one a request there (docs/search.md, Freshness and
 * limits). On AWS a transaction costs twice the write units, so the service writes one a request there.
 */
export function packGroups<T>(members: readonly T[], most: number, actions: (member: T) => unknown[]): T[][] {
  const groups: { members: T[]; actions: number; bytes: number }[] = [];
  for (const member of members) {
    const own = actions(member);
    const bytes = itemBytes(own);
    const open = groups.at(-1);
    if (
      open &&
      open.members.length < most &&
      open.actions + own.length <= TRANSACTION_ACTIONS &&
      open.bytes + bytes <= GROUP_BYTES
    ) {
      open.members.push(member);
      open.actions += own.length;
      open.bytes += bytes;
    } else groups.push({ members: [member], actions: own.length, bytes });
  }
  return groups.map((group) => group.members);
}

/** `task` on each group of `members` (packGroups), GROUPS_IN_FLIGHT at once; the results in the groups' order. */
export const inGroups = <T, R>(
  members: readonly T[],
  most: number,
  actions: (member: T) => unknown[],
  task: (group: T[]) => Promise<R>,
): Promise<R[]> => mapLimit(packGroups(members, most, actions), GROUPS_IN_FLIGHT, task);
