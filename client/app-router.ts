import type {
  AnyRouter,
  inferRouterError,
  inferTRPCClientTypes,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
} from '@trpc/server';
import type { AppRouter as ServiceRouter } from '../routers/app.js';

/** An answer as the client hands it over: every plant's `id` a bigint. */
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

type ProcedureName<Router> = Exclude<keyof Router, '_def' | 'createCaller'>;

/** Only the compiler calls it: the type of its answer is the router as a client sees it. */
function clientView<Router extends AnyRouter>() {
  return undefined as unknown as TRPCBuiltRouter<
    {
      ctx: object;
      meta: object;
      errorShape: inferRouterError<Router>;
      transformer: inferTRPCClientTypes<Router>['transformer'];
    },
    { [Name in ProcedureName<Router>]: ClientProcedure<Router[Name]> }
  >;
}

// The router as a client sees it (ids as bigints), declared through a value so its .d.ts is written out in full:
// a client compiles it with `@trpc/server`'s types alone, nothing of the server.
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a value only for its type: see above.
const appRouterView = clientView<ServiceRouter>();
export type AppRouter = typeof appRouterView;
