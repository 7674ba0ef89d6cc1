import type { TRPCError } from '@trpc/server';
import type { FastifyRequest } from 'fastify';
import type { OpenApiRouter } from 'trpc-to-openapi';

/** What trpc-to-openapi's handler tells `responseMeta` of an answer it is about to send. */
export interface RestAnswer<TContext> {
  ctx?: TContext | undefined;
  data: unknown[];
  errors: unknown[];
  info?: { url?: Pick<URL, 'pathname' | 'search'> | null } | undefined;
}

export interface RestMeta {
  status?: number;
  headers?: Record<string, string>;
}

/** The options trpc-to-openapi's Fastify plugin takes, as the app gives them to it. */
export interface RestOptions<TContext> {
  /** trpc-to-openapi's `onError`; one that rethrows lets Fastify's error handler answer the failure. */
  onError: (options: { error: TRPCError }) => void;
  responseMeta: (answer: RestAnswer<TContext>) => RestMeta;
  /** For trpc-to-openapi's handler, which writes outputs with JSON.stringify; the direct calls use the reply serializer. */
  mapOutput?: (output: unknown) => unknown;
}

/** The app's options for /trpc, as it gives them to tRPC's Fastify handler. */
export interface TrpcOptions<TContext = never> {
  /** Extra headers for an error answer (what the stock handler's `responseMeta` adds). */
  errorHeaders: (error: TRPCError) => Record<string, string>;
  dataHeaders?: (ctx: TContext) => Record<string, string> | undefined;
  onError: (options: { error: TRPCError; req: FastifyRequest }) => void;
}

export interface FastHandlersOptions<TRouter extends OpenApiRouter, TContext extends object> {
  router: TRouter;
  createContext: (request: FastifyRequest) => TContext;
  rest: RestOptions<TContext>;
  trpc: TrpcOptions<TContext>;
  /** Lets tests fake a version mismatch. */
  installedVersion?: (packageName: string) => string | undefined;
}
