import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConnectionString } from 'mongodb-connection-string-url';
import { DEFAULT_BODY_LIMIT_BYTES } from '../schemas/body-limit.js';
import { acceptsAnyone, AUTH_ENV, authConfig, jwksUrlProblemInProduction, type AuthConfig } from './auth/auth-config.js';
import { ConfigError } from './env/config-error.js';
import { listItems } from './env/env-lists.js';
import { portNumber } from './env/port.js';
import { metricsConfig, telemetryEnv, tracingConfig, type MetricsConfig, type TracingConfig } from './observability/telemetry-config.js';
import {
  checkWebhookUrls,
  MAX_CHANGE_QUEUE_LIMIT,
  MAX_RETRY_DELAY_MS,
  webhookConfigProblem,
  webhookSecret,
  type WebhookConfig,
} from './webhooks/webhook-config.js';

const DEFAULT_DB_NAME = 'plantstore';
const MAX_SHUTDOWN_DELAY_MS = 600_000;

const csv = z
  .string()
  .optional()
  .transform((value) => listItems(value ?? ''));

const WHOLE_ABOVE_ZERO = { error: 'must be a whole number above 0' };
const positiveInt = (fallback: number) =>
  z.coerce.number(WHOLE_ABOVE_ZERO).int(WHOLE_ABOVE_ZERO).positive(WHOLE_ABOVE_ZERO).default(fallback);

const WRITE_CONCERN = { error: 'must be majority or a number of members, from 1 to 50' };

const NODE_ENV = z.enum(['development', 'production', 'test']).default('development');
/** MongoDB, as the service and `npm run webhooks:failed` both read it. */
const MONGODB_ENV = {
  MONGODB_URI: z
    .string()
    .optional()
    .refine((uri) => uri === undefined || parseConnectionString(uri) !== undefined, {
      error: 'must be a MongoDB connection string, like mongodb://127.0.0.1:27017/plantstore',
      abort: true,
    })
    .refine((uri) => uri === undefined || isDatabaseName(databaseNameOf(uri)), {
      error: 'names a database MongoDB refuses: a name has at most 63 bytes, and no / \\ . " $ or space',
    }),
  MONGODB_TIMEOUT_MS: positiveInt(3000),
  // w: 0 is refused: an unacknowledged write would let the API answer 200 for a plant it never saw stored.
  MONGODB_WRITE_CONCERN: z
    // A replica set has at most 50 members.
    .union(
      [z.literal('majority'), z.coerce.number(WRITE_CONCERN).int(WRITE_CONCERN).min(1, WRITE_CONCERN).max(50, WRITE_CONCERN)],
      WRITE_CONCERN,
    )
    .default('majority'),
  MONGODB_JOURNAL: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
};
/** The change queue's limit: a resync appends to the queue as a change does, within the same limit. */
const WEBHOOK_CHANGE_QUEUE_LIMIT = positiveInt(1_000).refine((limit) => limit <= MAX_CHANGE_QUEUE_LIMIT, {
  error: `must be at most ${MAX_CHANGE_QUEUE_LIMIT}`,
});
// Development only: where the embedded MongoDB keeps its data and the development token is kept.
const PLANT_STORE_DEV_DIR = z.string().default('.dev');

const EnvSchema = z.object({
  NODE_ENV,
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: portNumber().default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ...MONGODB_ENV,
  // Who may call.
  ...AUTH_ENV,
  CORS_ORIGINS: csv.refine((origins) => origins.every((origin) => URL.canParse(origin)), {
    error: 'each origin must be a URL such as https://app.example',
  }),
  BODY_LIMIT_BYTES: positiveInt(DEFAULT_BODY_LIMIT_BYTES),
  // With the check below every eighth of it and a margin, within RESPONSE_TIMEOUT_MS's default: a stall gets its 408 first.
  REQUEST_TIMEOUT_MS: positiveInt(8_000),
  // Longer than the idle timeout of common load balancers (60 s), so that they, not the service, close an idle connection:
  // one the service closed just as a balancer reused it would fail that request.
  KEEP_ALIVE_TIMEOUT_MS: positiveInt(65_000),
  // How long /readyz fails before the service closes on SIGTERM: the time load balancers take to stop sending.
  SHUTDOWN_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_SHUTDOWN_DELAY_MS, { error: 'must be at most 600000 (ten minutes)' })
    .default(0),
  RESPONSE_TIMEOUT_MS: positiveInt(10_000),
  MAX_PIPELINED_REQUESTS: positiveInt(16),
  // A batch's calls run at once: one request must not take MongoDB from everyone else.
  TRPC_MAX_BATCH_SIZE: positiveInt(16),
  /** Unset: the process's descriptor limit less a reserve. */
  MAX_CONNECTIONS: z.coerce.number().int().positive().optional(),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, context) => {
      const trust = parseTrustProxy(value);
      if (trust === undefined)
        context.addIssue({
          code: 'custom',
          message: 'must be true, false, or comma-separated proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal)',
        });
      return trust ?? false;
    }),
  // off: the stock tRPC and trpc-to-openapi adapters instead of @plant-store/fast-path (same answers, slower).
  FAST_PATH: z
    .enum(['on', 'off'], { error: 'must be on or off' })
    .default('on')
    .transform((value) => value === 'on'),
  /** Unset: no limit. Else failed authentications allowed per client address per window. */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().positive().optional(),
  AUTH_FAILURE_WINDOW_MS: positiveInt(60_000),
  // The new-plant webhook.
  WEBHOOK_URLS: csv.superRefine(checkWebhookUrls),
  // Every change of a plant, as typed events.
  WEBHOOK_CHANGE_URLS: csv.superRefine(checkWebhookUrls),
  WEBHOOK_SECRET: webhookSecret,
  WEBHOOK_RETRY_BASE_MS: positiveInt(5_000).refine((ms) => ms <= MAX_RETRY_DELAY_MS, { error: 'must be at most 3600000 (one hour)' }),
  WEBHOOK_MAX_ATTEMPTS: positiveInt(10),
  WEBHOOK_TIMEOUT_MS: positiveInt(5_000),
  WEBHOOK_CHANGE_QUEUE_LIMIT,
  // Prometheus metrics and OpenTelemetry traces.
  ...telemetryEnv,
  PLANT_STORE_DEV_DIR,
});

/**
 * What `npm run webhooks:failed` reads: MongoDB and the change queue's limit, nothing the service alone needs (tokens,
 * a webhook secret), so it runs where the service runs with MONGODB_URI alone.
 */
const WebhooksCliEnvSchema = z.object({ NODE_ENV, ...MONGODB_ENV, WEBHOOK_CHANGE_QUEUE_LIMIT, PLANT_STORE_DEV_DIR });

/** Every environment variable the configuration reads. */
export const CONFIG_VARIABLES = Object.keys(EnvSchema.shape) as (keyof typeof EnvSchema.shape)[];

export interface MongoConfig {
  /** Unset: the caller starts the embedded MongoDB. */
  uri: string | undefined;
  dbName: string;
  timeoutMs: number;
  writeConcern: { w: 'majority' | number; journal: boolean };
}

/** `npm run webhooks:failed`'s configuration: a part of the service's, read and validated alike. */
export interface WebhooksCliConfig {
  env: Config['env'];
  mongodb: MongoConfig;
  /** As the service's: a resync appends no event beyond it. */
  changeQueueLimit: number;
  devDir: string;
}

export interface Config extends AuthConfig {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: string;
  mongodb: MongoConfig;
  corsOrigins: string[];
  /** On SIGTERM, how long the service keeps serving with `/readyz` failing before it closes. */
  shutdownDelayMs: number;
  http: {
    bodyLimit: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    /** How long a connection may make no progress (nothing read, nothing written) while it is open. */
    responseTimeoutMs: number;
    /** Requests one connection may have waiting for the answers ahead of them. */
    maxPipelinedRequests: number;
    /** Connections open at once; undefined: from the descriptor limit. */
    maxConnections: number | undefined;
    trustProxy: TrustProxy;
    /** Serve the API through @plant-store/fast-path (true) or the stock adapters (false). */
    fastPath: boolean;
    /** Calls one /trpc batch may make. */
    maxBatchSize: number;
  };
  authFailureLimit: { max: number; windowMs: number } | undefined;
  webhooks: WebhookConfig;
  /** Off when undefined: nothing of them is loaded. */
  metrics: MetricsConfig | undefined;
  tracing: TracingConfig | undefined;
  /** The development data folder, absolute: used only without MONGODB_URI or tokens. */
  devDir: string;
}

/**
 * Whose `X-Forwarded-For` to believe (Fastify's `trustProxy`): no one, everyone (only when nothing but the proxy can
 * reach the service), or proxies at these addresses. No hop counts: Fastify 5 treats those as trusting no one.
 */
export type TrustProxy = boolean | string[];

/** Read from the environment once at start-up; nothing else reads `process.env` but the OpenTelemetry SDK. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const e = parseEnv(EnvSchema, env);
  const auth = authConfig(e);
  if ('problem' in auth) throw ConfigError.of(auth.problem);
  if (e.NODE_ENV === 'production') {
    const missing = [
      !acceptsAnyone(auth) && 'API_TOKENS (or API_TOKEN_HASHES, or AUTH_JWKS_URL)',
      e.MONGODB_URI === undefined && 'MONGODB_URI',
    ].filter(Boolean);
    if (missing.length > 0) {
      throw ConfigError.of(`${missing.join(' and ')} must be set when NODE_ENV=production`);
    }
    const jwksProblem = jwksUrlProblemInProduction(auth);
    if (jwksProblem) throw ConfigError.of(jwksProblem);
  }
  // A request may wait on MongoDB (a create: two operations) without a byte moving on its connection.
  if (e.RESPONSE_TIMEOUT_MS <= 2 * e.MONGODB_TIMEOUT_MS) {
    throw ConfigError.of(
      `RESPONSE_TIMEOUT_MS must be more than twice MONGODB_TIMEOUT_MS ` +
        `(${e.MONGODB_TIMEOUT_MS}): a request may wait that long for MongoDB`,
    );
  }
  const webhooks = {
    urls: e.WEBHOOK_URLS,
    changeUrls: e.WEBHOOK_CHANGE_URLS,
    secret: e.WEBHOOK_SECRET,
    retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    changeQueueLimit: e.WEBHOOK_CHANGE_QUEUE_LIMIT,
  };
  const webhookProblem = webhookConfigProblem(webhooks);
  if (webhookProblem) throw ConfigError.of(webhookProblem);
  const metrics = metricsConfig(e, e.HOST);
  if (metrics && metrics.port === e.PORT && metrics.port !== 0 && metrics.host === e.HOST) {
    throw ConfigError.of(`METRICS_PORT must not be PORT (${e.PORT}) on the same host: the metrics have a listener of their own`);
  }
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    mongodb: mongoConfig(e),
    ...auth,
    corsOrigins: e.CORS_ORIGINS,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    http: {
      bodyLimit: e.BODY_LIMIT_BYTES,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      responseTimeoutMs: e.RESPONSE_TIMEOUT_MS,
      maxPipelinedRequests: e.MAX_PIPELINED_REQUESTS,
      maxConnections: e.MAX_CONNECTIONS,
      trustProxy: e.TRUST_PROXY,
      fastPath: e.FAST_PATH,
      maxBatchSize: e.TRPC_MAX_BATCH_SIZE,
    },
    authFailureLimit: e.AUTH_FAILURE_LIMIT === undefined ? undefined : { max: e.AUTH_FAILURE_LIMIT, windowMs: e.AUTH_FAILURE_WINDOW_MS },
    webhooks,
    metrics,
    tracing: tracingConfig(e),
    devDir: resolve(e.PLANT_STORE_DEV_DIR),
  };
}

/**
 * `npm run webhooks:failed`'s part of the configuration, validated as the service validates it. In production
 * MONGODB_URI is required: the development folder is read only outside it.
 */
export function loadWebhooksCliConfig(env: Record<string, string | undefined>): WebhooksCliConfig {
  const e = parseEnv(WebhooksCliEnvSchema, env);
  if (e.NODE_ENV === 'production' && e.MONGODB_URI === undefined) {
    throw ConfigError.of('MONGODB_URI must be set when NODE_ENV=production');
  }
  return {
    env: e.NODE_ENV,
    mongodb: mongoConfig(e),
    changeQueueLimit: e.WEBHOOK_CHANGE_QUEUE_LIMIT,
    devDir: resolve(e.PLANT_STORE_DEV_DIR),
  };
}

/** The environment as `schema` reads it, blanks as unset; every problem named by its variable. */
function parseEnv<T extends z.ZodType>(schema: T, env: Record<string, string | undefined>): z.output<T> {
  const parsed = schema.safeParse(blankToUndefined(env));
  if (!parsed.success) {
    throw ConfigError.of(parsed.error.issues.map((failure) => `${failure.path.join('.')}: ${failure.message}`));
  }
  return parsed.data;
}

type MongoEnv = z.output<z.ZodObject<typeof MONGODB_ENV>>;

function mongoConfig(e: MongoEnv): MongoConfig {
  return {
    uri: e.MONGODB_URI,
    dbName: (e.MONGODB_URI && databaseNameOf(e.MONGODB_URI)) || DEFAULT_DB_NAME,
    timeoutMs: e.MONGODB_TIMEOUT_MS,
    writeConcern: { w: e.MONGODB_WRITE_CONCERN, journal: e.MONGODB_JOURNAL },
  };
}

/** `TRUST_PROXY`: unset or `false`, `true`, or addresses and ranges; undefined when it is none of these. */
function parseTrustProxy(value: string | undefined): TrustProxy | undefined {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  const ranges = listItems(value);
  return ranges.length > 0 && ranges.every(isAddressOrRange) ? ranges : undefined;
}

/** The names proxy-addr (Fastify's) knows for the loopback, link-local and private ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(value: string): boolean {
  if (NAMED_RANGES.has(value)) return true;
  const [address = '', bits, ...rest] = value.split('/');
  if (rest.length > 0 || isIP(address) === 0) return false;
  if (bits === undefined) return true;
  const maxBits = isIP(address) === 4 ? 32 : 128;
  return /^\d+$/.test(bits) && Number(bits) <= maxBits;
}

function parseConnectionString(uri: string): ConnectionString | undefined {
  try {
    return new ConnectionString(uri);
  } catch {
    return undefined;
  }
}

/** The database a connection string names, decoded as the driver decodes it; empty when it names none. */
function databaseNameOf(uri: string): string | undefined {
  try {
    return decodeURIComponent(parseConnectionString(uri)?.pathname.slice(1) ?? '');
  } catch {
    return undefined;
  }
}

/** mongod's rule for a database name (none: the default one); the driver leaves it to the first command. */
function isDatabaseName(name: string | undefined): boolean {
  return name !== undefined && Buffer.byteLength(name) < 64 && !/[/\\. "$\0]/.test(name);
}

/** `PORT=` in a shell or .env file means "not set", not "invalid". */
function blankToUndefined(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value?.trim() === '' ? undefined : value]));
}
