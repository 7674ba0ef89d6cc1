import {
  getTRPCErrorShape,
  transformTRPCResponse,
  type AnyTRPCProcedure,
  type AnyTRPCRouter,
  type TRPCError,
  type TRPCRootConfig,
} from '@trpc/server';
import type { RootTypes } from './trpc-direct-call.js';

export interface ProcedureEntry<TMeta> {
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  meta: TMeta | undefined;
  /** The fields of its input, when every `.input()` is an object schema with a `shape` (zod's); otherwise undefined. */
  inputKeys: string[] | undefined;
}

// tRPC gives no public way to list a router's procedures with their meta; this package already reads its internals.
export function procedureEntries<TMeta>(router: AnyTRPCRouter): ProcedureEntry<TMeta>[] {
  return Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>).map(([path, procedure]) => ({
    path,
    type: procedure._def.type,
    meta: procedure._def.meta as TMeta | undefined,
    inputKeys: inputKeysOf((procedure._def as { inputs?: unknown[] }).inputs ?? []),
  }));
}

function inputKeysOf(inputs: readonly unknown[]): string[] | undefined {
  const shapes = inputs.map((input) => (input as { shape?: unknown } | null)?.shape);
  if (shapes.some((shape) => typeof shape !== 'object' || shape === null)) return undefined;
  return shapes.flatMap((shape) => Object.keys(shape as object));
}

/**
 * tRPC's error body for `error`, through the router's own error formatter and transformer; a call's names its path. The
 * formatter is given what is known of the context, if anything, before tRPC made one. `httpStatus`, when given, is the
 * answer's status, which tRPC's clients read from the body: one that no tRPC code stands for (505) is said there too.
 */
export function trpcErrorBody(
  router: AnyTRPCRouter,
  error: TRPCError,
  { path, ctx, httpStatus }: { path?: string | undefined; ctx?: object; httpStatus?: number } = {},
): unknown {
  const config = router._def._config as TRPCRootConfig<RootTypes>;
  const shape = getTRPCErrorShape({ config, error, type: 'unknown', path, input: undefined, ctx });
  const data: unknown = shape.data;
  const withStatus =
    httpStatus !== undefined && typeof data === 'object' && data !== null ? { ...shape, data: { ...data, httpStatus } } : shape;
  return transformTRPCResponse(config, { error: withStatus });
}
