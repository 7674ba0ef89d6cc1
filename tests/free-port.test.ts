// The launcher's free ports, which the process tests bind a moment after choosing them, are never ones the OS may
// meanwhile give an outgoing connection.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '@plant-store/service-launcher';
import { describe, expect, it } from 'vitest';

const RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
// Linux says; elsewhere IANA's range.
const [low = NaN, high = NaN] = existsSync(RANGE) ? readFileSync(RANGE, 'utf8').trim().split(/\s+/).map(Number) : [49152, 65535];

describe('freePort', () => {
  it('gives loopback ports outside the ephemeral range, which can then be bound', async () => {
    expect(Number.isInteger(low) && Number.isInteger(high), `${RANGE} reads ${String(low)} ${String(high)}`).toBe(true);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(port < low || port > high, `${String(port)} in ${String(low)}-${String(high)}`).toBe(true);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject).listen(ports[0], '127.0.0.1', resolve);
    });
    server.close();
  });
});
