/**
 * The fast path: the one door to the code that reads tRPC's and trpc-to-openapi's internals to
 * serve the same answers as their stock Fastify adapters with less work per request.
 *
 * - REST: an operation's plain path is answered on its own route by the direct call, which takes
 *   trpc-to-openapi's handler's steps with its own exported pieces (query reading, coercion and
 *   error conversion) but works out once per operation what the handler redoes per request
 *   (rest-direct-call.ts); any other path goes to trpc-to-openapi's handler itself, given light
 *   request/response shims instead of Fastify's patched objects (rest-routes.ts,
 *   openapi-shims.ts). Both run procedures without tRPC's per-level object copies (run-procedure.ts).
 * - tRPC: the common single call (a POST mutation or a GET query) answered with tRPC's own
 *   pieces, without building fetch `Request` and `Response` objects (trpc-direct-call.ts).
 *
 * The tests beside these files compare the answers with tRPC's and trpc-to-openapi's own.
 * Because this code reads internals, `createFastHandlers` serves only with the versions of
 * @trpc/server and trpc-to-openapi pinned in this package's peer dependencies
 * (installed-versions.ts); with any other, it says which, and the caller keeps the stock adapters.
 */
export { createFastHandlers, type FastHandlers, type FastPath } from './fast-handlers.js';
export { describeMismatches, INTERNALS_READ, testedVersions, type VersionMismatch } from './installed-versions.js';
export type { FastHandlersOptions, RestAnswer, RestMeta, RestOptions, TrpcOptions } from './options.js';
export { restOperations, type RestOperation } from './rest-operations.js';
export type { RestRouteHooks } from './rest-routes.js';
export { procedureEntries, trpcErrorBody, type ProcedureEntry } from './router-reading.js';
