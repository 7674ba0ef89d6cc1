import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { exactIntegers } from './int64-edge.js';
import { watchClosing } from './graceful-close.js';
import { isBehindEarlierRequests, PipelinedRequests } from './pipelining.js';
import { requestRefusal } from './request-refusals.js';

/**
 * What every request needs on its way in and out, as one onRequest and one onSend hook: each hook
 * is a step of Fastify's hook runner on every request, so the shared work is gathered in one of
 * each. Callback-style, so no promise per request.
 *
 * In: a pipelined request waits for the ones before it on its connection (pipelining.ts); then
 * the request id (`X-Request-Id`, which error bodies and log lines name too) and the refusals of
 * requests no route can serve (request-refusals.ts). Out: exact int64 numbers (exact-integers.ts),
 * `Connection: close` while the app closes (graceful-close.ts), and no `Content-Type` on a 204: it has no content to
 * describe (RFC 9110, section 15.3.5), and Fastify drops it only from a 204 sent with a payload,
 * while trpc-to-openapi's handler sets it on every answer.
 */
export function registerRequestHooks(app: FastifyInstance, { maxPipelinedRequests }: { maxPipelinedRequests: number }): void {
  const gracefulClose = watchClosing(app);
  const pipelined = new PipelinedRequests(maxPipelinedRequests);
  app.addHook('onRequest', (request, reply, done) => {
    if (!isBehindEarlierRequests(reply)) start(request, reply, done);
    else {
      pipelined.wait(reply, (error) => {
        if (error) done(error);
        else start(request, reply, done);
      });
    }
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    gracefulClose.closeConnection(reply);
    if (reply.statusCode === 204 && reply.hasHeader('content-type')) reply.removeHeader('content-type');
    // A 304 has no content (RFC 9110, section 15.4.5): the answer's body, written by an adapter that sends one, is dropped.
    if (reply.statusCode === 304) {
      reply.removeHeader('content-type');
      done(null, null);
      return;
    }
    done(null, exactIntegers(payload));
  });
}

function start(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  reply.header('x-request-id', request.id);
  done(requestRefusal(request, reply));
}
