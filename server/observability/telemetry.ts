/** Metrics and traces are each loaded only when configured: unset, nothing of them is imported or runs per request. */
import type { AppRouter } from '../../routers/app.js';
import { logLine } from '../logs/log-line.js';
import type { ApiOperations } from './api-operations.js';
import type { ServiceMetrics } from './metrics.js';
import type { MetricsConfig, TracingConfig } from './telemetry-config.js';
import type { AppTracing } from './tracing.js';
import type { TracingSdk } from './tracing-sdk.js';

export interface Telemetry {
  metrics: ServiceMetrics | undefined;
  tracing: AppTracing | undefined;
  /** How both tell a request's operation; undefined when both are off. */
  operations: ApiOperations | undefined;
}

/** Must run before anything imports the MongoDB driver, so that its instrumentation can patch it. */
export async function startTracing(
  config: TracingConfig | undefined,
  warn: (message: string) => void = (message) => process.stdout.write(logLine('warn', message)),
): Promise<TracingSdk | undefined> {
  if (config === undefined) return undefined;
  const { startTracingSdk } = await import('./tracing-sdk.js');
  return startTracingSdk(config, warn);
}

export async function loadTelemetry(
  config: { metrics: MetricsConfig | undefined; tracing: TracingConfig | undefined },
  router: AppRouter,
): Promise<Telemetry> {
  if (config.metrics === undefined && config.tracing === undefined)
    return { metrics: undefined, tracing: undefined, operations: undefined };
  const [{ ApiOperations }, metrics, tracing] = await Promise.all([
    import('./api-operations.js'),
    config.metrics && import('./metrics.js').then(({ ServiceMetrics }) => new ServiceMetrics()),
    startTracing(config.tracing).then(async (sdk) => sdk && new (await import('./tracing.js')).AppTracing(sdk)),
  ]);
  return { metrics, tracing, operations: new ApiOperations(router) };
}
