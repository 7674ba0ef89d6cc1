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
  // Callback-style hooks: they run on every request, and need no promise when there is nothing to do.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header('connection', 'close');
    done(new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'the service is shutting down: try again shortly' }));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
