import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import type { PlantStore } from '../../routers/plant-store.js';
import { MongoPlantStore } from '../plants/mongo-plant-store.js';
import { StoreUnavailableError } from '../../routers/plant-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where the procedures keep plants. */
    plantStore: PlantStore;
  }
}

export type PlantStoreOptions =
  /** A store of one's own (tests, benchmarks of the HTTP layers): MongoDB is not used. */
  { store: PlantStore } | { store?: undefined; writeConcern: { w: 'majority' | number; journal: boolean } };

/** The plant store: the given one, or MongoDB's, recording each create's webhook event in the same write. */
export const plantStorePlugin = fp<PlantStoreOptions>(
  async (app, options) => {
    if (options.store) {
      app.decorate('plantStore', options.store);
      return;
    }
    const { w, journal } = options.writeConcern;
    const store = new MongoPlantStore(app.mongo.db, { w, journal }, app.webhookEvents, app.mongo);
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
  { name: 'plant-store' },
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
      if (!(error instanceof StoreUnavailableError)) {
        log.error({ err: error }, 'could not create the index of plants by tag; listing by tag scans the collection');
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, INDEX_RETRY_MS).unref());
  }
}
