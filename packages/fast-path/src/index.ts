// The one door to code that reads tRPC's and trpc-to-openapi's internals to give their stock Fastify adapters'
// answers with less work per request. Reading internals, it serves only with the pinned peer versions; with any
// other, the caller keeps the stock adapters.
export { answerSignal } from './answer-signal.js';
export { createFastHandlers, type FastHandlers, type FastPath } from './fast-handlers.js';
export { describeMismatches, INTERNALS_READ, TESTED_VERSIONS, type VersionMismatch } from './installed-versions.js';
export type { FastHandlersOptions, RestAnswer, RestMeta, RestOptions, TrpcOptions } from './options.js';
export { restOperations, type RestOperation } from './rest-operations.js';
export type { RestRouteHooks } from './rest-routes.js';
export { procedureEntries, trpcErrorBody, type ProcedureEntry } from './router-reading.js';
