import fp from 'fastify-plugin';
import { appRouter } from '../../routers/app.js';
import { exactJsonText } from '../http/int64-edge.js';
import { registerDocsRoutes } from '../openapi/docs-routes.js';
import { buildOpenApiDocument } from '../openapi/document.js';

/** `/openapi.json` and the interactive reference at `/docs`, from the router; they need no token. */
export const docsPlugin = fp(
  async (app) => {
    const document = buildOpenApiDocument(appRouter);
    // Written once: it is the same for every caller, and needs no token, so anyone may ask for it in a flood.
    const text = exactJsonText(document);
    app.get('/openapi.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(text));
    await registerDocsRoutes(app, { document });
  },
  { name: 'docs', dependencies: ['http'] },
);
