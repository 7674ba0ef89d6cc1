/**
 * The service with its observability switched on, as contenders of its own: with Prometheus
 * metrics (a metrics listener on a free port), and with tracing (every request sampled, spans
 * exported over OTLP/HTTP to a collector stub on loopback that reads and drops them, so the
 * service pays for making and sending spans, not for a collector's work).
 */
import { createServer } from 'node:http';
import { listenOnLoopback } from '@plant-store/service-launcher';
import type { ServerKind } from './child-protocol.js';

export interface CollectorStub {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** The environment that switches a kind's observability on: nothing for the other kinds. */
export function observedServiceEnv(kind: ServerKind, collector: CollectorStub | undefined): Record<string, string> {
  if (kind === 'service-metrics') return { METRICS_PORT: '0' };
  if (kind === 'service-tracing') {
    if (collector === undefined) throw new Error('the tracing contender needs the collector stub');
    return {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'always_on',
    };
  }
  return {};
}

export async function startCollectorStub(): Promise<CollectorStub> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  const { origin, close } = await listenOnLoopback(server);
  return { endpoint: origin, close };
}
