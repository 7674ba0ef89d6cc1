import type { BenchDatabase } from './bench-database.js';
import type { Operation } from './contenders.js';
import { deleteIds, updateIds } from './plant-requests.js';

/** The plants the MongoDB list rounds page through (the first page of which each request reads). */
export const LIST_SEED = 1_000;
/**
 * The MongoDB delete and update rounds store, before each round, the plants it will change; a round that runs out fails
 * on its first 404. At saturation: this many per second of the round (over twice the fastest rate seen here, 10,458/s;
 * 12,000 ran out once).
 */
const POOL_PER_SECOND = 25_000;
/** Ids of the plants stored for delete and update rounds: apart from the list's and the creates'. */
let nextPoolId = 1_000_000;

/** A round of load: `rate` requests per second, all connections together, when it is set; else as fast as answered. */
export interface RoundLoad {
  seconds: number;
  rate?: number;
}

/**
 * The requests a round may send. At a set rate autocannon lets each connection send its share in every second it has
 * begun, counting from the start: when the second after the last one begins just before the stop, a round of 3 s
 * sends 4 s worth. A tenth more on top, for the few sent on reconnecting.
 */
function mostRequests({ seconds, rate }: RoundLoad): number {
  return Math.ceil(rate === undefined ? seconds * POOL_PER_SECOND : 1.1 * rate * (Math.floor(seconds) + 1));
}

export interface Mongo {
  uri: string;
  kind: string;
  description: string;
  stop(): Promise<void>;
}

export async function openMongo(): Promise<Mongo> {
  // Loaded only when needed: a no-op-only run needs no MongoDB at all.
  const { resolveMongo } = await import('../index.js');
  return resolveMongo({
    uri: process.env.MONGODB_URI,
    warn: (message: string) => {
      console.warn(message);
    },
  });
}

/** What a server child is started with: the token its requests carry, and the store's database. */
export function storeEnv(token: string, mongodbUri: string): Record<string, string> {
  return { API_TOKENS: token, MONGODB_URI: mongodbUri, MONGODB_WRITE_CONCERN: process.env.MONGODB_WRITE_CONCERN ?? 'majority' };
}

/**
 * Prepares the MongoDB store for the rounds of an operation: list pages through LIST_SEED known plants; delete and
 * update find, before each round, the plants they will change (`beforeRound`). The no-op store needs none of it: it
 * lists its own page and deletes or renames any id.
 */
export function storePreparation(operation: Operation, db: BenchDatabase | undefined) {
  return {
    beforeOperation: async () => {
      if (!db || operation.name === 'create') return;
      await db.empty();
      if (operation.name === 'list' || operation.name === 'list-by-tag') await db.fill(1, LIST_SEED);
    },
    /** `rounds`: the rounds to run on these plants, one after the other. */
    beforeRound: async (...rounds: RoundLoad[]) => {
      if (!db || (operation.name !== 'delete' && operation.name !== 'update')) return;
      await db.empty();
      // One more for the answer checked before the warm-up.
      const count = rounds.reduce((sum, round) => sum + mostRequests(round), 1);
      await db.fill(nextPoolId, count);
      (operation.name === 'delete' ? deleteIds : updateIds).restart(nextPoolId);
      nextPoolId += count;
    },
  };
}
