import { z } from 'zod';
import { portNumber } from '../env/port.js';

/** Prometheus metrics: a listener of their own, never on the API's port. Unset METRICS_PORT: none. */
export interface MetricsConfig {
  host: string;
  port: number;
}

/** OpenTelemetry tracing. The SDK reads its own OTEL_* variables; they are checked here first, so a mistake stops the service. */
export interface TracingConfig {
  /** OTEL_SERVICE_NAME, else `plant-store` (unless OTEL_RESOURCE_ATTRIBUTES names the service). */
  serviceName: string | undefined;
}

const EXPORTERS = ['otlp', 'console', 'zipkin', 'none'] as const;
const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
const DEFAULT_SERVICE_NAME = 'plant-store';

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://collector:4318' }).optional();
const oneOf = (values: readonly string[]) => z.enum(values, { error: `must be one of ${values.join(', ')}` }).optional();

/** The variables, for the config schema. */
export const telemetryEnv = {
  METRICS_PORT: portNumber().optional(),
  METRICS_HOST: z.string().min(1).optional(),
  OTEL_SDK_DISABLED: z.enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False'], { error: 'must be true or false' }).optional(),
  OTEL_TRACES_EXPORTER: z
    .string()
    .optional()
    .refine((value) => value === undefined || exporterList(value).every((name) => (EXPORTERS as readonly string[]).includes(name)), {
      error: `must be a comma-separated list of ${EXPORTERS.join(', ')}`,
    }),
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url,
  OTEL_EXPORTER_ZIPKIN_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://zipkin:9411/api/v2/spans' })
    .optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(PROTOCOLS),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: oneOf(PROTOCOLS),
  OTEL_TRACES_SAMPLER: oneOf(SAMPLERS),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1, { error: 'must be a ratio from 0 to 1' }).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
};

type TelemetryEnv = z.infer<z.ZodObject<typeof telemetryEnv>>;

export function metricsConfig(env: Pick<TelemetryEnv, 'METRICS_PORT' | 'METRICS_HOST'>, apiHost: string): MetricsConfig | undefined {
  return env.METRICS_PORT === undefined ? undefined : { host: env.METRICS_HOST ?? apiHost, port: env.METRICS_PORT };
}

/** On when the SDK is not disabled and a trace exporter other than `none` is asked for, or implied by an OTLP endpoint. */
export function tracingConfig(env: TelemetryEnv): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return undefined;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporters =
    env.OTEL_TRACES_EXPORTER === undefined ? (endpoint === undefined ? [] : ['otlp']) : exporterList(env.OTEL_TRACES_EXPORTER);
  // As the SDK reads the list: `none` first turns tracing off.
  if (exporters.length === 0 || exporters[0] === 'none') return undefined;
  const namedInResource = /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  return { serviceName: env.OTEL_SERVICE_NAME ?? (namedInResource ? undefined : DEFAULT_SERVICE_NAME) };
}

function exporterList(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}
