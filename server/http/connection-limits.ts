import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Descriptors kept out of the connection limit: MongoDB's pool and monitors, webhook and key set fetches, logs, files. */
const DESCRIPTOR_RESERVE = 256;
const DROP_LOG_INTERVAL_MS = 10_000;

/** Bounds what clients that never read can hold, so they cannot take the descriptors MongoDB and the logs need. */
export function limitConnections(app: FastifyInstance, { maxConnections }: { maxConnections: number | undefined }): void {
  const log = app.log.child({ component: 'connections' });
  const server = app.server;
  const limit = maxConnections ?? connectionsWithinDescriptorLimit();
  if (limit !== undefined) server.maxConnections = limit;
  server.on('timeout', (socket: Socket) => {
    // Node's keep-alive timeout ends here too: an idle connection is as much as a stalled answer.
    log.debug(
      { remoteAddress: socket.remoteAddress },
      'closing a connection on which nothing moved in time: idle, or its answer not being read',
    );
    socket.destroy();
  });
  let toldAt = Number.NEGATIVE_INFINITY;
  let dropped = 0;
  server.on('drop', () => {
    dropped += 1;
    if (Date.now() - toldAt < DROP_LOG_INTERVAL_MS) return;
    toldAt = Date.now();
    log.warn({ maxConnections: server.maxConnections, dropped }, 'connection limit reached: new connections are closed until others end');
    dropped = 0;
  });
}

function connectionsWithinDescriptorLimit(): number | undefined {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  if (soft === undefined) return undefined;
  const limit = Number(soft);
  return Math.max(Math.floor(limit / 2), limit - DESCRIPTOR_RESERVE);
}
