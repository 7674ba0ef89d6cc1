import fp from 'fastify-plugin';
import { MongoDatabase, type MongoDatabaseOptions } from '../db/mongo-database.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's one MongoClient and its database, with the deadlines and healing every operation shares. */
    mongo: MongoDatabase;
  }
}

/** The MongoDB client: connected once the app is ready (so an unreachable server is logged at once), closed with it. */
export const mongodbPlugin = fp<Omit<MongoDatabaseOptions, 'monitorCommands'>>(
  async (app, options) => {
    const { metrics } = app.telemetry;
    const database = new MongoDatabase({ ...options, monitorCommands: metrics !== undefined }, app.log.child({ component: 'mongodb' }));
    metrics?.watchMongo(database.client);
    app.decorate('mongo', database);
    app.addHook('onReady', async () => {
      database.start();
    });
    app.addHook('onClose', () => database.close());
  },
  { name: 'mongodb', dependencies: ['telemetry'] },
);
