import { procedureEntries } from '@plant-store/fast-path';
import { appRouter } from '../../routers/app.js';
import type { ProcedureMeta } from '../../routers/procedure-meta.js';
import type { OperationExample, RequestExample } from '../../schemas/examples.js';

/** The examples each REST operation declares in its procedure, by operation id, then by status. */
export const OPERATION_EXAMPLES: Record<string, Record<number, OperationExample>> = Object.fromEntries(
  procedureEntries<ProcedureMeta>(appRouter).flatMap(({ meta }) => {
    const { answers, openapi, conditional } = meta ?? {};
    if (answers === undefined || openapi?.operationId === undefined) return [];
    const errors = Object.entries(answers.errors).map(([status, answer]) => [status, answer.example] as const);
    const notModified = typeof conditional?.ifNoneMatch === 'object' ? [[304, conditional.ifNoneMatch.example] as const] : [];
    return [[openapi.operationId, Object.fromEntries([[answers.success.status, answers.success.example], ...notModified, ...errors])]];
  }),
);

/** The example an operation declares for a status; throws when it declares none. */
export function exampleOf(operationId: string, status: number): OperationExample {
  const example = OPERATION_EXAMPLES[operationId]?.[status];
  if (example === undefined) throw new Error(`${operationId} declares no example for ${status}`);
  return example;
}

/** The further requests an operation offers to try out. */
export function moreRequestsOf(operationId: string): Record<string, RequestExample> {
  const entry = procedureEntries<ProcedureMeta>(appRouter).find(({ meta }) => meta?.openapi?.operationId === operationId);
  return entry?.meta?.answers?.success.moreRequests ?? {};
}
