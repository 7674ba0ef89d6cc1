import type { FastifyBaseLogger } from 'fastify';
import type { WriteConcernSettings } from 'mongodb';
import fp from 'fastify-plugin';
import type { PlantStore } from '../../routers/plant-store.js';
import { MongoPlantStore } from '../plants/mongo-plant-store.js';
import { StoreMisconfiguredError, StoreUnavailableError } from '../../routers/plant-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where the procedures keep plants. */
    plantStore: PlantStore;
  }
}

/** A store of one's own (tests, benchmarks of the HTTP layers): MongoDB is not used. */
export const givenPlantStorePlugin = fp<{ store: PlantStore }>(
  async (app, { store }) => {
    app.decorate('plantStore', store);
  },
  { name: 'plant-store' },
);

/** MongoDB's store, recording each change's webhook events in the same write. */
export const mongoPlantStorePlugin = fp<{ writeConcern: WriteConcernSettings }>(
  async (app, { writeConcern }) => {
    const store = new MongoPlantStore(app.mongo.db, writeConcern, app.webhookEvents, app.mongo);
    app.decorate('plantStore', store);
    // Once MongoDB answers: until then the store works without the index, scanning.
    const closing = { now: false };
    app.addHook('onReady', async () => {
      void createIndexesOnceReachable(store, app.log, () => closing.now);
    });
    app.addHook('onClose', async () => {
      closing.now = true;
    });
  },
  { name: 'plant-store', dependencies: ['mongodb', 'webhooks'] },
);

const INDEX_RETRY_MS = 1_000;

/** Creates the store's indexes, trying again while MongoDB is away; an index MongoDB refuses is logged and left. */
async function createIndexesOnceReachable(store: MongoPlantStore, log: FastifyBaseLogger, closed: () => boolean): Promise<void> {
  while (!closed()) {
    try {
      await store.createIndexes();
      return;
    } catch (error) {
      if (closed()) return;
      if (error instanceof StoreMisconfiguredError) {
        const until = 'until MONGODB_WRITE_CONCERN and MONGODB_JOURNAL ask what this deployment can do';
        log.error(`${error.message}: every write fails, and /readyz answers 503, ${until}`);
        return;
      }
      if (!(error instanceof StoreUnavailableError)) {
        log.error({ err: error }, 'could not create the index of plants by tag; listing by tag scans the collection');
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, INDEX_RETRY_MS).unref());
  }
}
