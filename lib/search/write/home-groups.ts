import { inGroups } from '../../dynamodb/write-groups.ts';
import type { TermChange } from './block-writes.ts';
import { type HomePlan, planHome } from './home-plan.ts';
import type { Home } from './home-read.ts';
import { type HomeWrite, homeWritesOf, landed } from './home-write.ts';
import { LostRace, send, type TermStore } from './term-store.ts';

/** A home as the writer read it, and its changes by term. */
export interface HomeChanges {
  home: string;
  changes: ReadonlyMap<string, TermChange>;
  state: Home;
}

/** A home whose changes are one write, and what that write sends. */
interface Member {
  home: string;
  state: Home;
  write: HomeWrite;
  tally: HomePlan['tally'];
}

/**
 * The homes whose changes are a single write of the home record (and the blocks its tails seal), as members of a
 * group; a home whose changes write nothing is done at once, with its tally.
 */
function membersOf(store: TermStore, homes: readonly HomeChanges[], done: Map<string, HomePlan['tally']>) {
  const members: Member[] = [];
  for (const { home, changes, state } of homes) {
    const { planned, sealedParts, tally } = planHome(store, changes, state);
    if (sealedParts.size > 0) continue;
    const writes = homeWritesOf(store, home, state, planned);
    const [write] = writes;
    if (!write) done.set(home, tally);
    else if (writes.length === 1) members.push({ home, state, write, tally });
  }
  return members;
}

/**
 * Many homes' writes in a few transactions of at most `store.writesPerTransaction` homes (write-groups.ts says why):
 * those whose changes are a single write of their home record. A group that lost a race to another writer lands
 * nothing (a transaction is all or nothing), and its homes are left for the writer's home-by-home path, which writes
 * each alone and reads again those that lost; any other failure is thrown. Returns the tallies of the homes done, by
 * home. With `writesPerTransaction` 1, as on AWS, it does nothing.
 */
export async function writeGrouped(
  store: TermStore,
  homes: readonly HomeChanges[],
  fence: () => void,
): Promise<Map<string, HomePlan['tally']>> {
  const done = new Map<string, HomePlan['tally']>();
  if (store.writesPerTransaction <= 1) return done;
  const members = membersOf(store, homes, done);
  await inGroups(
    members,
    store.writesPerTransaction,
    (member) => member.write.actions,
    async (group) => {
      try {
        await send(
          store,
          group.flatMap((member) => member.write.actions),
          fence,
        );
      } catch (error) {
        if (error instanceof LostRace) return;
        throw error;
      }
      for (const { home, state, write, tally } of group) {
        landed(state, write);
        done.set(home, tally);
      }
    },
  );
  return done;
}
