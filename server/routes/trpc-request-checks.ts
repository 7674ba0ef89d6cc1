import { procedureEntries } from '@plant-store/fast-path';
import type { FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import type { ProcedureMeta } from '../../routers/procedure-meta.js';
import { httpError } from '../errors/http-error.js';
import type { ScopeOf } from './token-first.js';

// What a /trpc request must be before its body or input is read: within the batch limit, and its caller's scope, where
// one call names it, granted.

/**
 * The scope of a single call's procedure, sent with the method its type takes; a batch's calls are judged one by one,
 * and a call sent with the wrong method gets tRPC's 405 first.
 */
export function singleCallScope(router: AppRouter): ScopeOf {
  const procedures = new Map(procedureEntries<ProcedureMeta>(router).map(({ path, type, meta }) => [path, { type, scope: meta?.scope }]));
  return (request) => {
    if ((request.query as { batch?: unknown }).batch !== undefined) return undefined;
    const procedure = procedures.get((request.params as { path?: string }).path ?? '');
    const type = request.method === 'POST' ? 'mutation' : 'query';
    return procedure?.type === type ? procedure.scope : undefined;
  };
}

export function batchRefusal(request: FastifyRequest, maxBatchSize: number): Error | null {
  if ((request.query as { batch?: unknown }).batch !== '1') return null;
  const calls = ((request.params as { path?: string }).path ?? '').split(',').length;
  if (calls <= maxBatchSize) return null;
  return httpError(
    400,
    `a batch may make at most ${maxBatchSize} calls (TRPC_MAX_BATCH_SIZE), and this one makes ${calls}: ` +
      "split it (httpBatchLink's maxItems does)",
  );
}
