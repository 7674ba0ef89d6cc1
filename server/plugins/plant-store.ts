import fp from 'fastify-plugin';
import type { PlantStore } from '../../routers/plant-store.js';
import { MongoPlantStore } from '../plants/mongo-plant-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where the procedures keep plants. */
    plantStore: PlantStore;
  }
}

export type PlantStoreOptions =
  /** A store of one's own (tests, benchmarks of the HTTP layers): MongoDB is not used. */
  | { store: PlantStore }
  | { store?: undefined; writeConcern: { w: 'majority' | number; journal: boolean } };

/** The plant store: the given one, or MongoDB's, recording each create's webhook event in the same write. */
export const plantStorePlugin = fp<PlantStoreOptions>(
  async (app, options) => {
    if (options.store) {
      app.decorate('plantStore', options.store);
      return;
    }
    const { w, journal } = options.writeConcern;
    app.decorate('plantStore', new MongoPlantStore(app.mongo.db, { w, journal }, app.webhookEvents, app.mongo));
  },
  { name: 'plant-store' },
);
