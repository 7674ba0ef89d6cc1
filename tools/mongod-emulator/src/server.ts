// The TCP listener(s): accepts connections on every --bind_ip address and hands each to
// serveConnection with the shared store and cursor registry.
import { createServer, type AddressInfo, type Server } from 'node:net';
import { serveConnection, type Shared } from './connection.js';
import { CursorRegistry } from './cursors.js';
import { FailPoints } from './failpoints.js';
import { log } from './log.js';
import { Store } from './store.js';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export interface ServerOptions {
  port: number;
  bindIps: readonly string[];
  testCommands: boolean;
  onShutdown: () => void;
  /** The data, loaded from the dbpath by the caller; unset: a new, empty, in-memory one. */
  store?: Store;
  /** Makes the changes of a command durable before it is answered; unset: data lives in memory only. */
  journal?: Shared['journal'];
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  let connectionCount = 0;
  const shared: Shared = {
    store: options.store ?? new Store(),
    journal: options.journal,
    cursors: new CursorRegistry(),
    failPoints: new FailPoints(),
    server: { port: options.port, startedAt: new Date(), testCommands: options.testCommands, requestShutdown: options.onShutdown },
  };
  const servers: Server[] = [];
  let port = options.port;
  for (const host of options.bindIps) {
    const server = createServer((socket) => {
      connectionCount += 1;
      serveConnection(socket, connectionCount, shared);
    });
    server.on('error', (error) => {
      log('E', 'NETWORK', 23024, 'Listener error', { error: error.message });
    });
    // With --port 0 the first listener picks a port and the others reuse it.
    port = await listen(server, port, host);
    servers.push(server);
  }
  shared.server.port = port;
  return {
    port,
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => {
                resolve();
              });
            }),
        ),
      ).then(() => undefined),
  };
}
