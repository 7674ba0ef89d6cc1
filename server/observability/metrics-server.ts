import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { MetricsConfig } from './telemetry-config.js';

export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** A listener apart from the API, so a public load balancer in front of the API never exposes it. */
export async function listenForScrapes(registry: Registry, { host, port }: MetricsConfig, log: FastifyBaseLogger): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    answer(registry, request, response).catch((error: unknown) => {
      log.error({ err: error }, 'metrics: the scrape failed');
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('the metrics could not be read\n');
    });
  });
  // A scraper keeps its connection alive between scrapes; closing must not wait for it.
  server.keepAliveTimeout = 65_000;
  server.listen(port, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}${METRICS_PATH}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function answer(registry: Registry, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '').split('?', 1)[0];
  if (path !== METRICS_PATH) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: the metrics are at ${METRICS_PATH}\n`);
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end(`${METRICS_PATH} answers GET\n`);
    return;
  }
  // prom-client writes NaN as `Nan`; the exposition format spells it `NaN`, and strict parsers read nothing else.
  const text = (await registry.metrics()).replaceAll(/^([^#].*) Nan$/gm, '$1 NaN');
  response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : text);
}
