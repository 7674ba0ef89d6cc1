import type { AnyTRPCProcedure } from '@trpc/server';
import type { HTTPMethods } from 'fastify';
import { getPathRegExp, normalizePath, type OpenApiMeta, type OpenApiRouter } from 'trpc-to-openapi';

export interface RestOperation {
  method: HTTPMethods;
  path: string;
  fastifyPath: string;
  procedure: AnyTRPCProcedure;
  procedurePath: string;
  matchesUrl(url: string): boolean;
}

/** The router's REST operations, in the order trpc-to-openapi tries them (the router's). */
export function restOperations(router: OpenApiRouter): RestOperation[] {
  const procedures = Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>);
  return procedures.flatMap(([procedurePath, procedure]) => {
    const openapi = (procedure._def.meta as OpenApiMeta | undefined)?.openapi;
    if (!openapi || openapi.enabled === false) return [];
    // Matched as trpc-to-openapi's handler matches, with its own pieces.
    const pattern = getPathRegExp(normalizePath(openapi.path));
    return [
      {
        method: openapi.method,
        path: openapi.path,
        fastifyPath: openapi.path.replace(/\{(\w+)\}/g, ':$1'),
        procedure,
        procedurePath,
        matchesUrl: (url: string) => pattern.test(normalizePath(url.split('?', 1)[0] ?? '')),
      },
    ];
  });
}
