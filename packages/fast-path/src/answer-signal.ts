import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';

const connectionSignal = Symbol('plant-store.connectionSignal');

type SignalledSocket = Socket & { [connectionSignal]?: AbortSignal };

/**
 * Aborts once no one can read the answer. Over HTTP/1.1 an answer is cut short only by its connection closing, so
 * one signal per connection serves every call on it: an AbortController per call cost more than a page's JSON.
 * A connection already closed when the call starts (a pipelining client refused meanwhile) aborts it at once.
 */
export function answerSignal(reply: FastifyReply): AbortSignal {
  const socket: SignalledSocket = reply.request.raw.socket;
  if (reply.raw.destroyed || socket.destroyed) return AbortSignal.abort(new ClientGoneError());
  return (socket[connectionSignal] ??= abortedOnClose(socket));
}

function abortedOnClose(socket: Socket): AbortSignal {
  const controller = new AbortController();
  socket.once('close', () => {
    controller.abort(new ClientGoneError());
  });
  return controller.signal;
}

class ClientGoneError extends Error {
  override name = 'ClientGoneError';
  constructor() {
    super('the client closed the connection before the answer');
  }
}

/** Made only when a procedure asks for it: most never do. */
export class LazyAnswerSignal {
  private made: AbortSignal | undefined;

  constructor(private readonly reply: FastifyReply) {}

  get signal(): AbortSignal {
    return (this.made ??= answerSignal(this.reply));
  }
}
