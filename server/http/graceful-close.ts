import { Server as NetServer, type Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** How long, once closing, the connections still open may bring one more request before those idle all along are closed. */
const DRAIN_WINDOW_MS = 1_000;

/**
 * Shutdown comes in two steps (server/main.ts): first it is announced, and `/readyz` fails so that
 * load balancers stop sending new work while every route still serves; then `app.close()` drains.
 */
export class ShutdownNotice {
  #announced = false;
  get announced(): boolean {
    return this.#announced;
  }
  announce(): void {
    this.#announced = true;
  }
  /**
   * Closing the listener resets the connections still waiting in its queue, requests and all: a
   * turn of the event loop right before `app.close()` accepts them (two turns, as the first may
   * end before the loop polls again; from there to the listener's close is no I/O).
   */
  async acceptWaitingConnections(): Promise<void> {
    await nextTurn();
    await nextTurn();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly shutdown: ShutdownNotice;
  }
}

export interface GracefulClose {
  /** For onSend: `Connection: close` on every answer once closing. */
  closeConnection(reply: FastifyReply): void;
}

/**
 * From the moment `app.close()` starts, every request that reaches the service is answered as
 * usual, never refused: a load balancer does not retry a refused POST. Every answer then says
 * `Connection: close`, so each connection ends with the response in flight on it.
 *
 * Node's `server.close()` closes at once every connection between two requests, and a request a
 * client sends just then is lost to a reset: on a busy keep-alive connection that is a matter of
 * microseconds. So closing first only stops accepting (new connections are refused), and the
 * connections still open get up to DRAIN_WINDOW_MS to bring their next request, answered and
 * closed; only those idle all that time are closed by `server.close()` after. request-hooks.ts
 * calls `closeConnection` from the app's one onSend hook. Why by hand: docs/decisions/graceful-close.md.
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

/** The app's open connections, so that closing can wait for them to end. */
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

  /** Resolves once no connection is open, or after `ms` at most. */
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
