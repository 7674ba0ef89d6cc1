import fp from 'fastify-plugin';
import { registerHealthRoutes } from '../routes/health-routes.js';

/** `/healthz` and `/readyz`, which need no token. */
export const healthPlugin = fp(
  async (app) => {
    registerHealthRoutes(app, { store: app.plantStore });
  },
  { name: 'health', dependencies: ['plant-store', 'http'] },
);
