import type { FastifyReply } from 'fastify';

/**
 * Aborts once no one can read the answer: the connection closed before the response ended, as tRPC's Node adapter
 * tells it. A connection already closed when the call starts (a pipelining client refused meanwhile) aborts it at
 * once, which a listener alone would miss.
 */
export function answerSignal(reply: FastifyReply): AbortSignal {
  const response = reply.raw;
  if (response.destroyed || reply.request.raw.socket.destroyed) return AbortSignal.abort(new ClientGoneError());
  const controller = new AbortController();
  // 'close' follows the end of every response, so the listener goes with it.
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new ClientGoneError());
  });
  return controller.signal;
}

class ClientGoneError extends Error {
  override name = 'ClientGoneError';
  constructor() {
    super('the client closed the connection before the answer');
  }
}

/** Made only when a procedure asks for it: most never do, and the signal costs a listener. */
export class LazyAnswerSignal {
  private made: AbortSignal | undefined;

  constructor(private readonly reply: FastifyReply) {}

  get signal(): AbortSignal {
    return (this.made ??= answerSignal(this.reply));
  }
}
