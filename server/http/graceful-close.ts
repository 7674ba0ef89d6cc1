import { Server as NetServer, type Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** How long, once closing, the connections still open may bring one more request before those idle all along are closed. */
const DRAIN_WINDOW_MS = 1_000;

/** Shutdown is first announced, so `/readyz` fails and load balancers stop sending work while every route still serves. */
export class ShutdownNotice {
  #announced = false;
  get announced(): boolean {
    return this.#announced;
  }
  announce(): void {
    this.#announced = true;
  }
  /** Closing the listener resets connections still in its queue: two event-loop turns accept them first. */
  async acceptWaitingConnections(): Promise<void> {
    await nextTurn();
    await nextTurn();
  }
}

/** Why `/readyz` fails once shutdown is announced: expected, and logged once when announced, not on every probe. */
export class ShuttingDownError extends Error {
  override name = 'ShuttingDownError';
  constructor() {
    super('the service is shutting down');
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly shutdown: ShutdownNotice;
  }
}

export interface GracefulClose {
  closeConnection(reply: FastifyReply): void;
}

/**
 * Requests that arrive while closing are answered, never refused: a load balancer does not retry a refused POST.
 * `server.close()` would reset a request sent between two others, so open connections get DRAIN_WINDOW_MS first.
 */
export function watchClosing(app: FastifyInstance): GracefulClose {
  let closing = false;
  const open = new OpenConnections(app);
  app.decorate('shutdown', new ShutdownNotice());
  app.addHook('preClose', async () => {
    closing = true;
    app.shutdown.announce();
    // The listener alone: http.Server's own close() would also drop the connections between requests.
    if (app.server.listening) NetServer.prototype.close.call(app.server);
    await open.allClosed(DRAIN_WINDOW_MS);
  });
  return {
    closeConnection(reply) {
      if (closing) reply.header('connection', 'close');
    },
  };
}

class OpenConnections {
  readonly #sockets = new Set<Socket>();
  #onEmpty: (() => void) | undefined;

  constructor(app: FastifyInstance) {
    app.server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => {
        this.#sockets.delete(socket);
        if (this.#sockets.size === 0) this.#onEmpty?.();
      });
    });
  }

  async allClosed(ms: number): Promise<void> {
    if (this.#sockets.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#onEmpty = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#onEmpty = undefined;
  }
}
