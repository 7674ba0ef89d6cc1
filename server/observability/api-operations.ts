import type { FastifyRequest, HTTPMethods } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { procedureEntries, restOperations, type RestOperation } from '@plant-store/fast-path';
import { answeredMethod } from '../methods/answered-method.js';
import { operationAt } from '../routes/rest-declarations.js';
import { TRPC_PREFIX } from '../routes/trpc-routes.js';

export type Transport = 'rest' | 'trpc';

/** How metrics label and traces name a request: never by its raw path, so ids cannot grow the label set. */
export interface ApiOperation {
  /** The operation's id; `other`: a path or procedure no single operation serves (unknown, or a tRPC batch). */
  readonly name: string;
  readonly transport: Transport;
  /** The route template, as REST declares it or `/trpc/` and the procedure; `/*` or `/trpc/{procedure}` for `other`. */
  readonly route: string;
}

/** How to tell the operation of each request a route serves, from the request and its answer's status. */
export type OperationOf = (request: FastifyRequest, statusCode: number) => ApiOperation;

const OTHER = 'other';
const TRPC_ROUTE = `${TRPC_PREFIX}/:path`;

/** Told from the route a request took, so requests served by the fast path and by the catch-all are labelled alike. */
export class ApiOperations {
  private readonly rest: readonly { operation: RestOperation; labels: ApiOperation }[];
  private readonly procedures: ReadonlyMap<string, ApiOperation>;
  private readonly restOther: ApiOperation = { name: OTHER, transport: 'rest', route: '/*' };
  private readonly trpcOther: ApiOperation = { name: OTHER, transport: 'trpc', route: `${TRPC_PREFIX}/{procedure}` };

  constructor(router: AppRouter) {
    this.rest = restOperations(router).map((operation) => ({
      operation,
      labels: { name: operation.procedurePath, transport: 'rest', route: operation.path },
    }));
    const names = procedureEntries(router).map(({ path }) => path);
    this.procedures = new Map(names.map((name) => [name, { name, transport: 'trpc', route: `${TRPC_PREFIX}/${name}` }]));
  }

  /** Worked out once per route, so most requests cost a lookup at most. */
  forRoute(route: { url: string; method: HTTPMethods | HTTPMethods[] }): OperationOf {
    if (route.url === TRPC_ROUTE)
      return (request) => this.procedures.get((request.params as { path?: string }).path ?? '') ?? this.trpcOther;
    const methods = [route.method].flat().map(answeredMethod);
    const own = this.rest.filter(({ operation }) => operation.fastifyPath === route.url && methods.includes(operation.method));
    const [only] = own;
    // An operation's route may take a URL that is not its operation's: one with an empty parameter, which the route
    // looked up (`GET /plants/` lists), or refused (404, 405: `/plants/` again, an escaped `/%70lants` the router
    // decoded). The URL tells, as on the catch-all.
    if (only && own.length === 1)
      return (request, statusCode) =>
        request.restOperation !== undefined || statusCode === 404 || statusCode === 405 ? this.ofRestRequest(request) : only.labels;
    return (request) => this.ofRestRequest(request);
  }

  /** Undefined for a route outside the API (probes, docs). */
  of(request: FastifyRequest, url: string | undefined): ApiOperation | undefined {
    if (url === TRPC_ROUTE) return this.procedures.get((request.params as { path?: string }).path ?? '') ?? this.trpcOther;
    if (url === '/*' || this.rest.some(({ operation }) => operation.fastifyPath === url)) return this.ofRestRequest(request);
    return undefined;
  }

  /** A request no route took, told by its URL alone. */
  unrouted(request: FastifyRequest): ApiOperation {
    return request.url.startsWith(`${TRPC_PREFIX}/`) ? this.trpcOther : this.restOther;
  }

  private ofRestRequest(request: FastifyRequest): ApiOperation {
    return operationAt(this.rest, request.method, request.url)?.labels ?? this.restOther;
  }
}
