import swagger, { type StaticDocumentSpec } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { downloadUrl, exactJsonResponses } from './docs-plugins.js';

export const DOCS_PREFIX = '/docs';

/** Every asset comes from this server, so a CDN cannot creep in; inline styles because Swagger UI sets some. */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A context of its own, so the `swagger` decorator and the CSP header stay with these routes. */
export async function registerDocsRoutes(app: FastifyInstance, { document }: { document: OpenAPIObject }) {
  await app.register(async (docs) => {
    await docs.register(swagger, { mode: 'static', specification: { document: asStaticDocument(document) } });
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      staticCSP: DOCS_CSP,
      // No validator badge: it would send the document to a third-party validator.
      validatorUrl: false,
      uiConfig: { displayRequestDuration: true, tryItOutEnabled: false, plugins: [downloadUrl, exactJsonResponses] },
    });
  });
}

/** The same JSON; only the TypeScript models differ (openapi3-ts here, openapi-types there). */
function asStaticDocument(document: OpenAPIObject): StaticDocumentSpec['document'] {
  return document as unknown as StaticDocumentSpec['document'];
}
