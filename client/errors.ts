import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from './app-router.js';

/** A failed call, or one the client refused itself: `data.code` is the tRPC code and `data.httpStatus` its status. */
export type PlantStoreError = TRPCClientError<AppRouter>;

/** Tested against this package's own `@trpc/client`, so it holds where an app has another copy of it. */
export const isPlantStoreError = (cause: unknown): cause is PlantStoreError => cause instanceof TRPCClientError;
