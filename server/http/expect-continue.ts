import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { hasBody } from './request-refusals.js';

/**
 * Node answers `Expect: 100-continue` as the headers arrive, before any route has judged the request: a stranger or an
 * oversized body would be invited to upload. Held here, the interim answer goes out when something starts reading the
 * body, whatever reads it; a refusal sent before that comes instead.
 */
export function holdContinue(app: FastifyInstance): void {
  app.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    // Without a body there is nothing to hold back, and Node closes a connection whose 100 was never sent.
    if (hasBody(request.headers)) {
      request.once('resume', () => {
        // Node also resumes a request to drain it once its answer is sent: no 100 then.
        if (!response.headersSent && !response.writableEnded) response.writeContinue();
      });
    } else response.writeContinue();
    app.server.emit('request', request, response);
  });
}
