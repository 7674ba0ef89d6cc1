import type { FastifyInstance } from 'fastify';
import { writeBackAdapterMarkers } from '../http/int64-edge.js';
import type { ApiRoutesOptions } from './api-routes.js';
import { declaredOperations, operationFinder } from './rest-declarations.js';
import { otherMediaTypesOf, registerMediaTypes } from './rest-media-types.js';
import { restRouteHooks } from './rest-route-hooks.js';

/**
 * The REST operations in a context of their own. trpc-to-openapi writes outputs with JSON.stringify, so int64 values go
 * to it made writable. Its catch-all serves every path, so only the operations' own paths and methods tell a 405 from a
 * 404.
 */
export async function registerRestRoutes(app: FastifyInstance, { router, serving, createContext }: ApiRoutesOptions) {
  const declared = declaredOperations(router);
  const otherMediaTypes = otherMediaTypesOf(declared);
  await app.register(async (rest) => {
    app.routeMethods.fromOperations(rest, declared);
    const operationOf = operationFinder(rest, declared);
    writeBackAdapterMarkers(rest);
    registerMediaTypes(rest, declared, otherMediaTypes, operationOf);
    await serving.registerRestRoutes(rest, restRouteHooks(declared, otherMediaTypes, operationOf, createContext));
  });
}
