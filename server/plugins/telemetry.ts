import fp from 'fastify-plugin';
import { appRouter } from '../../routers/app.js';
import type { MetricsConfig, TracingConfig } from '../observability/telemetry-config.js';
import { loadTelemetry, type Telemetry } from '../observability/telemetry.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Metrics and traces, each undefined when not configured. */
    telemetry: Telemetry;
  }
}

export interface TelemetryOptions {
  metrics: MetricsConfig | undefined;
  tracing: TracingConfig | undefined;
}

/**
 * Metrics (their own listener, from ready to close) and traces, when configured. Registered
 * first, so that tracing wraps every route and the other plugins can hand it their observers.
 */
export const telemetryPlugin = fp<TelemetryOptions>(
  async (app, config) => {
    const telemetry = await loadTelemetry(config, appRouter);
    if (telemetry.tracing && telemetry.operations) await telemetry.tracing.instrument(app, telemetry.operations);
    if (telemetry.metrics && config.metrics) telemetry.metrics.serve(app, config.metrics);
    if (telemetry.metrics && telemetry.operations) telemetry.metrics.countUnrouted(app, telemetry.operations);
    app.decorate('telemetry', telemetry);
  },
  { name: 'telemetry' },
);
