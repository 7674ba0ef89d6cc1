import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { hasBody } from './request-refusals.js';

const OWED_CONTINUE = Symbol('100 Continue owed');
type AwaitingRequest = IncomingMessage & { [OWED_CONTINUE]?: ServerResponse };

/**
 * Node answers `Expect: 100-continue` as the headers arrive, before any route has judged the request: a stranger or an
 * oversized body would be invited to upload. Held here, the interim answer goes out only when a body is about to be read.
 */
export function holdContinue(app: FastifyInstance): void {
  app.server.on('checkContinue', (request: AwaitingRequest, response: ServerResponse) => {
    // Without a body there is nothing to hold back, and Node closes a connection whose 100 was never sent.
    if (hasBody(request.headers)) request[OWED_CONTINUE] = response;
    else response.writeContinue();
    app.server.emit('request', request, response);
  });
}

/** Sends the `100 Continue` a request's client waits for before its body, if it is still owed. */
export function sendOwedContinue(request: AwaitingRequest): void {
  const response = request[OWED_CONTINUE];
  if (response === undefined) return;
  request[OWED_CONTINUE] = undefined;
  if (!response.headersSent && !response.writableEnded) response.writeContinue();
}
