/**
 * The fast path: the one door to the code that reads tRPC's and trpc-to-openapi's internals to
 * serve the same answers with less work per request (what it saves is measured in bench/README.md).
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
 * `FAST_PATH=off` serves the same routes with the stock adapters instead: trpc-to-openapi's
 * Fastify plugin and tRPC's Fastify request handler. CI runs the whole test suite both ways,
 * and the tests beside these files compare their answers with tRPC's and trpc-to-openapi's own
 * (rest-routes.test.ts covers rest-routes.ts, rest-direct-call.ts and openapi-shims.ts).
 *
 * Because this code reads internals, @trpc/server and trpc-to-openapi are pinned to exact
 * versions in package.json. To upgrade them: bump both pins, run `npm test` and
 * `FAST_PATH=off npm test`; a difference in the tests beside these files points to the
 * internal that moved. Until it is fixed, `FAST_PATH=off` serves with the new versions.
 */
export { registerFastRestRoutes } from './rest-routes.js';
export { createDirectCall } from './trpc-direct-call.js';
