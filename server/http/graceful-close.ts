import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';

/**
 * From the moment `app.close()` starts: requests still arriving on open keep-alive connections
 * are refused with 503 in the app's own error shapes (Fastify's built-in 503, turned off in
 * app.ts, has another body), and every answer says `Connection: close`, so each connection ends
 * with the response in flight on it and the server stops without waiting for idle timeouts.
 */
export function registerGracefulClose(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'the service is shutting down: try again shortly' });
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
