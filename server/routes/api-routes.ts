import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';

/** What the REST and tRPC routes serve: the router, how a call gets its context, and which adapters. */
export interface ApiRoutesOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
  /** Serve through server/fast-path, or through the stock adapters (FAST_PATH=off). */
  fastPath: boolean;
}
