import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply } from 'fastify';

export interface GracefulClose {
  /** For onRequest: the 503 that refuses a request once closing (with `Connection: close`), else undefined. */
  refusal(reply: FastifyReply): Error | undefined;
  /** For onSend: `Connection: close` on every answer once closing. */
  closeConnection(reply: FastifyReply): void;
}

/**
 * From the moment `app.close()` starts: requests still arriving on open keep-alive connections
 * are refused with 503 in the app's own error shapes (Fastify's built-in 503, turned off in
 * app.ts, has another body), and every answer says `Connection: close`, so each connection ends
 * with the response in flight on it and the server stops without waiting for idle timeouts.
 * request-hooks.ts calls these from the app's one onRequest and one onSend hook.
 */
export function watchClosing(app: FastifyInstance): GracefulClose {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  return {
    refusal(reply) {
      if (!closing) return undefined;
      reply.header('connection', 'close');
      return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'the service is shutting down: try again shortly' });
    },
    closeConnection(reply) {
      if (closing) reply.header('connection', 'close');
    },
  };
}
