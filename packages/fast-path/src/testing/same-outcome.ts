import { TRPCError, type AnyTRPCProcedure } from '@trpc/server';
import { expect } from 'vitest';
import { runProcedure, type ProcedureCall } from '../run-procedure.js';

// For tests only (not built): the package's own and the service's check the runner the same way.

/** What a call came to: its data, or its error's code, message and kind of cause. */
type Outcome = { data: unknown } | { code: string; message: string; cause: string | undefined };

async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { data: await run() };
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    return { code: error.code, message: error.message, cause: error.cause?.constructor.name };
  }
}

/** Runs the call with runProcedure and with tRPC's own `procedure(call)`, expects the same outcome and answers it. */
export async function expectSameOutcome(procedure: AnyTRPCProcedure, call: ProcedureCall): Promise<Outcome> {
  const ours = await outcomeOf(() => runProcedure(procedure, call));
  expect(ours).toEqual(await outcomeOf(() => procedure(call)));
  return ours;
}
