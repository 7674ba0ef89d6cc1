import fp from 'fastify-plugin';
import { appRouter } from '../../routers/app.js';
import { registerDocsRoutes } from '../openapi/docs-routes.js';
import { buildOpenApiDocument } from '../openapi/document.js';

/** `/openapi.json` and the interactive reference at `/docs`, from the router; they need no token. */
export const docsPlugin = fp(
  async (app) => {
    const document = buildOpenApiDocument(appRouter);
    app.get('/openapi.json', async () => document);
    await registerDocsRoutes(app, { document });
  },
  { name: 'docs', dependencies: ['http'] },
);
