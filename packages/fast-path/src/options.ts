import type { TRPCError } from '@trpc/server';
import type { FastifyRequest } from 'fastify';
import type { OpenApiRouter } from 'trpc-to-openapi';

/** What trpc-to-openapi's handler tells `responseMeta` of an answer it is about to send. */
export interface RestAnswer<TContext> {
  ctx?: TContext | undefined;
  data: unknown[];
  errors: unknown[];
  /** The request's URL: only its path and query are read. */
  info?: { url?: Pick<URL, 'pathname' | 'search'> | null } | undefined;
}

/** The status and headers `responseMeta` gives an answer (trpc-to-openapi's own defaults where absent). */
export interface RestMeta {
  status?: number;
  headers?: Record<string, string>;
}

/** How the REST routes answer: the options trpc-to-openapi's Fastify plugin takes, as the app gives them to it. */
export interface RestOptions<TContext> {
  /** trpc-to-openapi's `onError`; one that rethrows lets Fastify's error handler answer the failure. */
  onError: (options: { error: TRPCError }) => void;
  /** The status and headers of each answer. */
  responseMeta: (answer: RestAnswer<TContext>) => RestMeta;
  /** Applied to each procedure's output before trpc-to-openapi writes it as JSON. */
  mapOutput?: (output: unknown) => unknown;
}

/** How /trpc answers: the options tRPC's Fastify request handler takes, as the app gives them to it. */
export interface TrpcOptions<TContext = never> {
  /** Extra headers for an answer with this error (what the stock handler's `responseMeta` adds). */
  errorHeaders: (error: TRPCError) => Record<string, string>;
  /** Extra headers for a successful answer, from the call's context (what the stock handler's `responseMeta` adds). */
  dataHeaders?: (ctx: TContext) => Record<string, string> | undefined;
  onError: (options: { error: TRPCError; req: FastifyRequest }) => void;
  /**
   * The text of a GET's `input` query parameter as the stock handler is given it, before it is
   * parsed as JSON (an app that rewrites the URL for tRPC's handler rewrites it here alike). May
   * throw the error that refuses the input.
   */
  queryInput?: (text: string) => string;
}

export interface FastHandlersOptions<TRouter extends OpenApiRouter, TContext extends object> {
  router: TRouter;
  /** A call's context, from its request (its Authorization header): the same for REST and /trpc. */
  createContext: (request: FastifyRequest) => TContext;
  rest: RestOptions<TContext>;
  trpc: TrpcOptions<TContext>;
  /**
   * The version of a package as installed where this package resolves it; undefined when it is
   * not found. Reads the package's package.json unless given (tests fake a mismatch here).
   */
  installedVersion?: (packageName: string) => string | undefined;
}
