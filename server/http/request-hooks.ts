import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NoRouteError } from '../errors/rest-error.js';
import { noteAnsweredBeforeBody } from './client-errors.js';
import { watchClosing } from './graceful-close.js';
import { isBehindEarlierRequests, PipelinedRequests } from './pipelining.js';
import { queryRefusal, requestRefusal } from './request-refusals.js';

/**
 * Callback-style hooks, as few as may be: each is a step of Fastify's runner on every request. A 204 loses
 * `Content-Type` (RFC 9110 section 15.3.5): trpc-to-openapi sets it on every answer, Fastify drops it only with a payload.
 */
export function registerRequestHooks(app: FastifyInstance, { maxPipelinedRequests }: { maxPipelinedRequests: number }): void {
  const gracefulClose = watchClosing(app);
  const pipelined = new PipelinedRequests(maxPipelinedRequests);
  app.addHook('onRequest', (request, reply, done) => {
    if (!isBehindEarlierRequests(reply)) start(request, reply, done);
    else {
      pipelined.wait(
        reply,
        (error) => {
          if (error) done(error);
          else start(request, reply, done);
        },
        done,
      );
    }
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    gracefulClose.closeConnection(reply);
    noteAnsweredBeforeBody(request.raw);
    if (reply.statusCode === 204 && reply.hasHeader('content-type')) reply.removeHeader('content-type');
    // A 304 has no content (RFC 9110, section 15.4.5): the answer's body, written by an adapter that sends one, is dropped;
    // a HEAD's goes on to Fastify's own HEAD step, which drops it after taking its length.
    if (reply.statusCode === 304) {
      reply.removeHeader('content-type');
      done(null, request.method === 'HEAD' ? (payload ?? undefined) : null);
      return;
    }
    done(null, payload);
  });
}

/**
 * Registered after CORS, so that a browser page reads these: a query it sends as written (`?tag=50%off`) is a 400; a
 * method no route serves is answered before Fastify judges its body (which refuses a QUERY without Content-Type).
 */
export function registerUrlRefusals(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(queryRefusal(request) ?? (request.is404 ? new NoRouteError() : undefined));
  });
}

function start(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  reply.header('x-request-id', request.id);
  done(requestRefusal(request));
}
