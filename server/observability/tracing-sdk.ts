import { FastifyOtelInstrumentation } from '@fastify/otel';
import { diag, DiagLogLevel, type DiagLogger, type Span } from '@opentelemetry/api';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TracingConfig } from './telemetry-config.js';

/** The process's tracing: the SDK, and Fastify's instrumentation for apps to register. */
export interface TracingSdk {
  readonly fastify: FastifyOtelInstrumentation;
  shutdown(): Promise<void>;
}

/** Where an app keeps the function that names its request spans. */
export const NAME_SPAN = Symbol('name the request span');
export type NameSpan = (span: Span, request: FastifyRequest) => void;

/** Health probes come every few seconds from every orchestrator and load balancer: no trace of them. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz']);
/** At most one line this often from OpenTelemetry's own warnings (an unreachable collector warns at every export). */
const WARN_EVERY_MS = 30_000;

let running: TracingSdk | undefined;

/**
 * The MongoDB instrumentation patches the driver as it loads, so this must run before anything imports `mongodb`.
 * Metrics go to Prometheus and logs to stdout, so the SDK exports neither.
 */
export function startTracingSdk(config: TracingConfig, warn: (message: string) => void): TracingSdk {
  if (running) return running;
  // OpenTelemetry says nothing by default, even when no span can be exported; OTEL_LOG_LEVEL still wins.
  diag.setLogger(throttledLogger(warn), DiagLogLevel.WARN);
  const fastify = new FastifyOtelInstrumentation({
    // One span per request; no span per hook or handler.
    instrumentHooks: false,
    instrumentHandler: false,
    ignorePaths: ({ url }) => UNTRACED_PATHS.has(url.split('?', 1)[0] ?? ''),
    requestHook: (span, request) => {
      (request.server as FastifyInstance & { [NAME_SPAN]?: NameSpan })[NAME_SPAN]?.(span, request);
    },
  });
  const sdk = new NodeSDK({
    ...(config.serviceName !== undefined && { serviceName: config.serviceName }),
    instrumentations: [fastify, new MongoDBInstrumentation()],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  running = { fastify, shutdown: () => sdk.shutdown() };
  return running;
}

/** OpenTelemetry's warnings and errors, through `warn`, one line per interval at most, with how many were held back. */
function throttledLogger(warn: (message: string) => void): DiagLogger {
  let lastAt = Number.NEGATIVE_INFINITY;
  let held = 0;
  const log = (message: string, ...args: unknown[]) => {
    const now = Date.now();
    if (now - lastAt < WARN_EVERY_MS) {
      held += 1;
      return;
    }
    lastAt = now;
    const details = args
      .map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : typeof arg === 'string' ? arg : JSON.stringify(arg)))
      .join(' ');
    warn(`opentelemetry: ${message}${details ? ` ${details}` : ''}${held > 0 ? ` (and ${held} more since the last such line)` : ''}`);
    held = 0;
  };
  const ignore = () => undefined;
  return { error: log, warn: log, info: ignore, debug: ignore, verbose: ignore };
}
