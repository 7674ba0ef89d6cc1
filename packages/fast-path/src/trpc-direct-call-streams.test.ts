import { initTRPC } from '@trpc/server';
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { createDirectCall } from './trpc-direct-call.js';

/**
 * A query whose data holds a promise or an async iterable cannot be answered without streaming:
 * tRPC's handler refuses it (UNSUPPORTED_MEDIA_TYPE). The direct call must refuse it alike, and
 * still answer plain data. No procedure of ours returns such data, so a router of its own here.
 */
it('refuses stream-like data as tRPC refuses it, and answers plain data alike', async () => {
  const t = initTRPC.create({ isDev: false });
  const router = t.router({
    holdsPromise: t.procedure.query(() => ({ n: 1, later: Promise.resolve(2) })),
    holdsIterable: t.procedure.query(() => ({
      items: (async function* () {
        yield 1;
      })(),
    })),
    isIterable: t.procedure.query(async function* () {
      yield 1;
    }),
    plain: t.procedure.query(() => ({ n: 1, nested: { then: 'a string, not a function' } })),
  });
  const tryDirectCall = createDirectCall({
    router,
    createContext: () => ({}),
    errorHeaders: () => ({}),
    onError: () => undefined,
  });
  const app = Fastify();
  app.get<{ Params: { path: string } }>(
    '/direct/:path',
    (request, reply) => tryDirectCall(request, reply, request.params.path) ?? reply.code(500).send('not a direct call'),
  );
  app.get<{ Params: { path: string } }>('/stock/:path', async (req, res) => {
    await fastifyRequestHandler({ router, createContext: () => ({}), req, res, path: req.params.path });
    return res;
  });

  const answers: Record<string, number> = {};
  for (const path of ['holdsPromise', 'holdsIterable', 'isIterable', 'plain']) {
    const [direct, stock] = await Promise.all([app.inject(`/direct/${path}`), app.inject(`/stock/${path}`)]);
    expect({ status: direct.statusCode, body: direct.json<unknown>() }, path).toEqual({
      status: stock.statusCode,
      body: stock.json<unknown>(),
    });
    answers[path] = direct.statusCode;
  }
  expect(answers).toEqual({ holdsPromise: 415, holdsIterable: 415, isIterable: 415, plain: 200 });
  await app.close();
});
