import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in server (a webhook receiver, a collector) listening on loopback. */
export interface LoopbackServer {
  port: number;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Stops it, dropping the connections still open. */
  close: () => Promise<void>;
}

/** Listens with `server` on 127.0.0.1 at `port` (0: one the OS picks). */
export async function listenOnLoopback(server: Server, port = 0): Promise<LoopbackServer> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const { port: listening } = server.address() as AddressInfo;
  return {
    port: listening,
    origin: `http://127.0.0.1:${listening}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
