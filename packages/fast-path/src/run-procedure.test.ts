import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRunnerCaller, heldInputCall, proceduresOf, runProcedure, type ProcedureCall } from './run-procedure.js';
import { expectSameOutcome } from './testing/same-outcome.js';

/**
 * run-procedure.ts runs a procedure's middleware chain in place of tRPC's own
 * runner; every outcome must be the one tRPC's own `procedure(call)` gives: the same data, or an
 * error with the same code, message and cause.
 */

describe('runProcedure follows tRPC middleware semantics', () => {
  const t = initTRPC.context<{ user: string; trace: string[] }>().meta<{ tag: string }>().create();
  const seen: unknown[] = [];
  const procedure = t.procedure
    .meta({ tag: 'm' })
    .use(async ({ ctx, meta, path, type, next }) => {
      seen.push({ meta, path, type });
      return next({ ctx: { trace: [...ctx.trace, 'first'] } });
    })
    .input(z.object({ n: z.number() }))
    .use(async ({ input, next }) => next({ input: { n: input.n * 2 } }))
    .use(async ({ ctx, next, getRawInput }) => {
      seen.push(await getRawInput());
      return next({ ctx: { user: ctx.user.toUpperCase() } });
    })
    .mutation(({ ctx, input }) => ({ user: ctx.user, trace: ctx.trace, n: input.n }));
  const noNext = t.procedure.use(async () => undefined as never).query(() => 'never');
  const throwing = t.procedure
    .use(() => {
      throw new Error('plain');
    })
    .query(() => 'never');
  const call = (input: unknown): ProcedureCall => ({
    ctx: { user: 'ann', trace: [] },
    getRawInput: async () => input,
    path: 'p',
    type: 'mutation',
    signal: undefined,
    batchIndex: 0,
  });

  it('merges ctx, overrides input, passes meta, path and type', async () => {
    seen.length = 0;
    expect(await expectSameOutcome(procedure, call({ n: 2 }))).toEqual({ data: { user: 'ANN', trace: ['first'], n: 4 } });
    expect(seen).toEqual([
      { meta: { tag: 'm' }, path: 'p', type: 'mutation' },
      { n: 2 },
      { meta: { tag: 'm' }, path: 'p', type: 'mutation' },
      { n: 2 },
    ]);
  });

  it('fails the same way on bad input, on a middleware that returns nothing, and on a plain throw', async () => {
    await expectSameOutcome(procedure, call({ n: 'two' }));
    await expectSameOutcome(noNext, { ...call(undefined), type: 'query' });
    await expectSameOutcome(throwing, { ...call(undefined), type: 'query' });
  });

  it('parses output as tRPC does: transforms, unknown keys, async checks and failures', async () => {
    const returning = (value: unknown) =>
      t.procedure
        .output(z.object({ n: z.number() }).transform(({ n }) => ({ n, doubled: n * 2 })))
        // A middleware between the output parser and the resolver, whose result the parser copies.
        .use(async ({ next }) => next())
        .query(() => value as { n: number });
    expect(await expectSameOutcome(returning({ n: 3, extra: 'dropped' }), { ...call(undefined), type: 'query' })).toEqual({
      data: { n: 3, doubled: 6 },
    });
    expect(await expectSameOutcome(returning({ n: 'three' }), { ...call(undefined), type: 'query' })).toMatchObject({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Output validation failed',
    });

    const asyncCheck = (n: number) =>
      t.procedure.output(z.object({ n: z.number() }).refine(async ({ n }) => n > 0, 'must be positive')).query(() => ({ n }));
    expect(await expectSameOutcome(asyncCheck(1), { ...call(undefined), type: 'query' })).toEqual({ data: { n: 1 } });
    expect(await expectSameOutcome(asyncCheck(-1), { ...call(undefined), type: 'query' })).toMatchObject({
      message: 'Output validation failed',
    });
  });

  it('parses input as tRPC does: several inputs merged, transforms, async checks and failures', async () => {
    const merged = t.procedure
      .input(z.object({ n: z.number() }))
      .input(z.object({ label: z.string().transform((label) => label.toUpperCase()) }))
      .query(({ input }) => input);
    expect(await expectSameOutcome(merged, { ...call({ n: 1, label: 'fern' }), type: 'query' })).toEqual({ data: { n: 1, label: 'FERN' } });
    expect(await expectSameOutcome(merged, { ...call({ n: 1 }), type: 'query' })).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await expectSameOutcome(merged, { ...call('not an object'), type: 'query' })).toMatchObject({ code: 'BAD_REQUEST' });

    const asyncCheck = t.procedure.input(z.number().refine(async (n) => n > 0, 'must be positive')).query(({ input }) => input);
    expect(await expectSameOutcome(asyncCheck, { ...call(2), type: 'query' })).toEqual({ data: 2 });
    expect(await expectSameOutcome(asyncCheck, { ...call(-2), type: 'query' })).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('resolves as tRPC does: sync and async answers, throws, rejections and foreign thenables', async () => {
    const resolving = (resolve: () => unknown) => t.procedure.query(resolve);
    // Not a promise: has only `then`, which answers later, as a foreign library's thenable may.
    const thenable = (value: unknown) => ({
      then: (onFulfilled: (value: unknown) => void) =>
        setTimeout(() => {
          onFulfilled(value);
        }, 1),
    });
    const query = { ...call(undefined), type: 'query' as const };
    expect(
      await expectSameOutcome(
        resolving(() => 'now'),
        query,
      ),
    ).toEqual({ data: 'now' });
    expect(
      await expectSameOutcome(
        resolving(async () => 'later'),
        query,
      ),
    ).toEqual({ data: 'later' });
    expect(
      await expectSameOutcome(
        resolving(() => thenable('foreign')),
        query,
      ),
    ).toEqual({ data: 'foreign' });
    expect(
      await expectSameOutcome(
        resolving(() => undefined),
        query,
      ),
    ).toEqual({ data: undefined });
    await expectSameOutcome(
      resolving(() => {
        throw new TRPCError({ code: 'NOT_FOUND', message: 'gone' });
      }),
      query,
    );
    expect(
      await expectSameOutcome(
        resolving(() => Promise.reject(new Error('plain'))),
        query,
      ),
    ).toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
  });

  it('reads input held by the caller at once, and the same as getRawInput would give', async () => {
    const held = (input: unknown): ProcedureCall => ({ ...call(input), readRawInputNow: () => input });
    expect(await expectSameOutcome(procedure, held({ n: 3 }))).toEqual({ data: { user: 'ANN', trace: ['first'], n: 6 } });
    await expectSameOutcome(procedure, held({ n: 'three' }));

    // What readRawInputNow throws is what getRawInput rejects with: passed on as it is, not a BAD_REQUEST.
    const refused = new TRPCError({ code: 'PARSE_ERROR', message: 'not JSON' });
    const failing: ProcedureCall = {
      ...call(undefined),
      getRawInput: () => Promise.reject(refused),
      readRawInputNow: () => {
        throw refused;
      },
    };
    expect(await expectSameOutcome(procedure, failing)).toMatchObject({ code: 'PARSE_ERROR', message: 'not JSON' });

    // A middleware that passes its own getRawInput is heard, whatever the caller held.
    const replaced = t.procedure
      .use(async ({ next }) => next({ getRawInput: async () => ({ n: 10 }) }))
      .input(z.object({ n: z.number() }))
      .query(({ input }) => input.n);
    expect(await expectSameOutcome(replaced, { ...held({ n: 1 }), type: 'query' })).toEqual({ data: 10 });
    // Its getRawInput may even answer a plain value, which tRPC's `await` takes as it is.
    const plainValue = t.procedure
      .use(async ({ next }) => next({ getRawInput: (() => ({ n: 11 })) as unknown as () => Promise<unknown> }))
      .input(z.object({ n: z.number() }))
      .query(({ input }) => input.n);
    expect(await expectSameOutcome(plainValue, { ...held({ n: 1 }), type: 'query' })).toEqual({ data: 11 });
  });

  it("passes the call's signal to middlewares and resolvers as tRPC does, read only when one asks for it", async () => {
    const aborted = AbortSignal.abort();
    const watching = t.procedure
      .use(async ({ signal, next }) => (signal?.aborted ? next({ ctx: { user: 'gone' } }) : next()))
      .query(({ ctx, signal }) => ({ user: ctx.user, same: signal === aborted }));
    expect(await expectSameOutcome(watching, { ...call(undefined), type: 'query', signal: aborted })).toEqual({
      data: { user: 'gone', same: true },
    });
    // A source the caller makes on demand: a procedure that never reads `signal` never makes one.
    let reads = 0;
    const source = {
      get signal() {
        reads += 1;
        return aborted;
      },
    };
    const ctx = { user: 'ann', trace: [] };
    expect(await runProcedure(procedure, heldInputCall(ctx, { n: 1 }, 'p', 'mutation', source))).toMatchObject({ n: 2 });
    expect(reads).toBe(0);
    expect(await runProcedure(watching, heldInputCall(ctx, undefined, 'p', 'query', source))).toEqual({ user: 'gone', same: true });
    expect(reads).toBe(2);
  });

  it('gives trpc-to-openapi a caller that runs the procedure for its path', async () => {
    const router = t.router({ nested: t.router({ double: procedure }) });
    const caller = createRunnerCaller(proceduresOf(router))({ user: 'bo', trace: [] }) as {
      nested: { double: (input: unknown) => Promise<unknown> };
    };
    const { double } = caller.nested;
    expect(await double({ n: 1 })).toEqual({ user: 'BO', trace: ['first'], n: 2 });
  });
});
