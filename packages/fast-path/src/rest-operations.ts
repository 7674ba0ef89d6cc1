import type { AnyTRPCProcedure } from '@trpc/server';
import type { HTTPMethods } from 'fastify';
import { getPathRegExp, normalizePath, type OpenApiMeta, type OpenApiRouter } from 'trpc-to-openapi';

/** A procedure served as REST: its method and its path, as its OpenAPI meta gives them. */
export interface RestOperation {
  method: HTTPMethods;
  /** The OpenAPI path, such as `/plants/{id}`. */
  path: string;
  /** The same path in Fastify's syntax, `/plants/:id`. */
  fastifyPath: string;
  /** The procedure, and its path in the router (`deletePlant`). */
  procedure: AnyTRPCProcedure;
  procedurePath: string;
  /** Whether a request URL (with or without query, trailing slash) names this operation's path. */
  matchesUrl(url: string): boolean;
}

/** The router's REST operations, in the order trpc-to-openapi tries them (the router's). */
export function restOperations(router: OpenApiRouter): RestOperation[] {
  const procedures = Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>);
  return procedures.flatMap(([procedurePath, procedure]) => {
    const openapi = (procedure._def.meta as OpenApiMeta | undefined)?.openapi;
    if (!openapi || openapi.enabled === false) return [];
    // As trpc-to-openapi's handler matches, with its own pieces: both paths normalised, then its
    // case-insensitive expression of the operation's path.
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
