import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';

/** Where the OS takes the local ports of outgoing connections (Linux says; elsewhere IANA's range). */
function ephemeralRange(): [number, number] {
  try {
    const [low = NaN, high = NaN] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // Not Linux.
  }
  return [49152, 65535];
}

const [EPHEMERAL_LOW, EPHEMERAL_HIGH] = ephemeralRange();
/** Below it, the ports local services are registered on. */
const FIRST_PORT = 10_000;
const ATTEMPTS = 20;

/**
 * A port free on the loopback interface now, for the caller to bind a moment later. Chosen outside the ephemeral range:
 * a port the OS hands out may meanwhile become the local end of any connection this machine opens, which fails the bind.
 */
export async function freePort(): Promise<number> {
  const below = Math.max(0, EPHEMERAL_LOW - FIRST_PORT);
  const above = Math.max(0, 65535 - EPHEMERAL_HIGH);
  for (let attempt = 0; attempt < ATTEMPTS && below + above > 0; attempt++) {
    const pick = Math.floor(Math.random() * (below + above));
    const port = pick < below ? FIRST_PORT + pick : EPHEMERAL_HIGH + 1 + pick - below;
    if ((await listened(port)) !== undefined) return port;
  }
  // No port outside the ephemeral range, or every one tried was taken: the OS's choice.
  const port = await listened(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}

/** The port a loopback listener got, closed again; undefined when it was taken. */
async function listened(port: number): Promise<number | undefined> {
  const server: Server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    // Rejects on 'error'.
    await once(server, 'listening');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
    throw error;
  }
  const { port: bound } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return bound;
}
