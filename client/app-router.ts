import type {
  AnyRouter,
  inferRouterError,
  inferTRPCClientTypes,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
} from '@trpc/server';
import type { AppRouter as ServiceRouter } from '../routers/app.js';

/** An answer as the client hands it over: every plant's `id` a bigint (int64-links.ts makes it so). */
export type WithBigintIds<T> = T extends readonly (infer Item)[]
  ? WithBigintIds<Item>[]
  : T extends { id: unknown }
    ? { [K in keyof T]: K extends 'id' ? bigint : T[K] }
    : T;

type ClientProcedure<P> =
  P extends TRPCQueryProcedure<infer Def>
    ? TRPCQueryProcedure<{ input: Def['input']; output: WithBigintIds<Def['output']>; meta: object; errorShape: Def['errorShape'] }>
    : P extends TRPCMutationProcedure<infer Def>
      ? TRPCMutationProcedure<{ input: Def['input']; output: WithBigintIds<Def['output']>; meta: object; errorShape: Def['errorShape'] }>
      : never;

/** A router's procedures, by name: what it holds besides tRPC's own `_def` and `createCaller`. */
type ProcedureName<Router> = Exclude<keyof Router, '_def' | 'createCaller'>;

/** Only the compiler calls it: the type of its answer is the router as a client sees it. */
function clientView<Router extends AnyRouter>() {
  return undefined as unknown as TRPCBuiltRouter<
    {
      ctx: object;
      // A client reads no procedure's meta (the REST answers and their examples are the server's).
      meta: object;
      errorShape: inferRouterError<Router>;
      transformer: inferTRPCClientTypes<Router>['transformer'];
    },
    { [Name in ProcedureName<Router>]: ClientProcedure<Router[Name]> }
  >;
}

/**
 * The service's router as a client sees it: its procedures' inputs and outputs (ids as bigints),
 * without the server's context. Declared through a value so that its declaration (.d.ts) is
 * written out in full and references nothing of the server: a client app's compiler reads it
 * with `@trpc/server`'s types alone.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a value only for its type: see above.
const appRouterView = clientView<ServiceRouter>();
export type AppRouter = typeof appRouterView;
