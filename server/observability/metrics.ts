import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MongoClient } from 'mongodb';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AttemptResult } from '../webhooks/delivery-worker.js';
import type { WebhookBacklog } from '../webhooks/backlog.js';
import type { WebhookObservers } from '../webhooks/register-webhooks.js';
import type { ApiOperation, ApiOperations, OperationOf } from './api-operations.js';
import { listenForScrapes, type MetricsServer } from './metrics-server.js';
import type { MetricsConfig } from './telemetry-config.js';

/** Latency buckets, in seconds, of API requests (bounded by MONGODB_TIMEOUT_MS and REQUEST_TIMEOUT_MS) and of MongoDB commands. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COMMAND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const REQUEST_LABELS = ['operation', 'transport', 'status_code'] as const;

const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

interface RequestSeries {
  count: Counter.Internal;
  seconds: Histogram.Internal<(typeof REQUEST_LABELS)[number]>;
}

/** One server's connection pool, as the driver's CMAP events tell it: counted here, turned into gauges when scraped. */
interface PoolCounts {
  created: number;
  closed: number;
  checkOutStarted: number;
  checkedOut: number;
  checkOutFailed: number;
  checkedIn: number;
}

/** The service's Prometheus metrics, in a registry of their own; loaded only when METRICS_PORT is set. */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'plant_store_requests_total',
    help: 'API requests answered, by operation (other: no single operation), transport (rest or trpc) and HTTP status code',
    labelNames: REQUEST_LABELS,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'plant_store_request_duration_seconds',
    help: 'Time from a request routed to its answer sent, by operation, transport and HTTP status code',
    labelNames: REQUEST_LABELS,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly commandSeconds = new Histogram({
    name: 'plant_store_mongodb_command_duration_seconds',
    help: 'MongoDB commands sent, by command name and outcome (success or failure), and how long each took',
    labelNames: ['command', 'outcome'],
    buckets: COMMAND_BUCKETS,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'plant_store_webhook_deliveries_total',
    help:
      'Webhook delivery attempts by outcome: delivered, retry (failed, another attempt is scheduled) or failed ' +
      '(failed, no further attempts)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly seriesByOperation = new Map<ApiOperation, Map<number, RequestSeries>>();
  private readonly pools = new Map<string, PoolCounts>();
  /** How to label a request no route took; counted once `countUnrouted` is called. */
  private unrouted: ApiOperations | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters, which Prometheus's lint refuses; `sum(nodejs_active_handles)` and the like give the same totals.
    for (const name of MISNAMED_DEFAULT_GAUGES) this.registry.removeSingleMetric(name);
  }

  /** Serves the metrics on a listener of their own while the app runs: from when it is ready until it closes. */
  serve(app: FastifyInstance, config: MetricsConfig): void {
    let server: MetricsServer | undefined;
    app.addHook('onReady', async () => {
      server = await listenForScrapes(this.registry, config, app.log);
      app.log.info({ metrics: server.url }, `metrics at ${server.url}`);
    });
    app.addHook('onClose', async () => {
      await server?.close();
    });
  }

  /** Counts only the API's routes, whichever adapters serve them; probes, docs and CORS preflights are not counted. */
  countRequests(api: FastifyInstance, operations: ApiOperations): void {
    // How each route tells its requests' operation, worked out at its first request.
    const byRoute = new Map<string, OperationOf>();
    api.addHook('onResponse', (request, reply, done) => {
      if (request.method === 'OPTIONS') {
        done();
        return;
      }
      const { url = '', method } = request.routeOptions;
      const key = `${String(method)} ${url}`;
      let operationOf = byRoute.get(key);
      if (operationOf === undefined) {
        operationOf = operations.forRoute({ url, method });
        byRoute.set(key, operationOf);
      }
      this.record(operationOf(request, reply.statusCode), reply);
      done();
    });
  }

  /**
   * Requests no route took are API requests too, counted as `other`: a method no route serves, here; a URL Fastify
   * cannot read runs no hook, so its refusal calls `countRefused`.
   */
  countUnrouted(app: FastifyInstance, operations: ApiOperations): void {
    this.unrouted = operations;
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) this.countRefused(request, reply);
      done();
    });
  }

  countRefused(request: FastifyRequest, reply: FastifyReply): void {
    if (this.unrouted && request.method !== 'OPTIONS') this.record(this.unrouted.unrouted(request), reply);
  }

  /** Times the client's commands (it must be made with `monitorCommands`) and follows its connection pools. */
  watchMongo(client: MongoClient): void {
    const timed = (outcome: 'success' | 'failure') => (event: { commandName: string; duration: number }) => {
      this.commandSeconds.observe({ command: event.commandName, outcome }, event.duration / 1000);
    };
    client.on('commandSucceeded', timed('success'));
    client.on('commandFailed', timed('failure'));
    const count = (field: keyof PoolCounts) => (event: { address: string }) => {
      this.poolOf(event.address)[field] += 1;
    };
    client.on('connectionCreated', count('created'));
    client.on('connectionClosed', count('closed'));
    client.on('connectionCheckOutStarted', count('checkOutStarted'));
    client.on('connectionCheckedOut', count('checkedOut'));
    client.on('connectionCheckOutFailed', count('checkOutFailed'));
    client.on('connectionCheckedIn', count('checkedIn'));
    this.poolGauge('plant_store_mongodb_pool_connections', 'Connections open to each MongoDB server', (pool) => pool.created - pool.closed);
    this.poolGauge(
      'plant_store_mongodb_pool_connections_in_use',
      'Connections to each MongoDB server checked out by an operation',
      (pool) => pool.checkedOut - pool.checkedIn,
    );
    this.poolGauge(
      'plant_store_mongodb_pool_waiting',
      'Operations waiting for a connection to each MongoDB server',
      (pool) => pool.checkOutStarted - pool.checkedOut - pool.checkOutFailed,
    );
  }

  /** The metrics' part in the webhooks: attempts counted by outcome, and the backlog read when scraped. */
  webhookObservers(): WebhookObservers {
    return {
      counted: (result: AttemptResult) => {
        this.webhookAttempts.inc({ outcome: result });
      },
      backlog: (read) => {
        this.watchBacklog(read);
      },
    };
  }

  private record(operation: ApiOperation, reply: FastifyReply): void {
    const series = this.seriesOf(operation, reply.statusCode);
    series.count.inc();
    series.seconds.observe(reply.elapsedTime / 1000);
  }

  /** The series of an operation and status, made once: prom-client's children, kept rather than looked up by labels per request. */
  private seriesOf(operation: ApiOperation, status: number): RequestSeries {
    let byStatus = this.seriesByOperation.get(operation);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.seriesByOperation.set(operation, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      const labels = { operation: operation.name, transport: operation.transport, status_code: String(status) };
      series = { count: this.requests.labels(labels), seconds: this.requestSeconds.labels(labels) };
      byStatus.set(status, series);
    }
    return series;
  }

  private poolOf(address: string): PoolCounts {
    let pool = this.pools.get(address);
    if (pool === undefined) {
      pool = { created: 0, closed: 0, checkOutStarted: 0, checkedOut: 0, checkOutFailed: 0, checkedIn: 0 };
      this.pools.set(address, pool);
    }
    return pool;
  }

  private poolGauge(name: string, help: string, value: (pool: PoolCounts) => number): void {
    const pools = this.pools;
    new Gauge({
      name,
      help,
      labelNames: ['server'],
      registers: [this.registry],
      collect() {
        for (const [server, pool] of pools) this.set({ server }, value(pool));
      },
    });
  }

  /** Read from MongoDB when scraped, one read at a time however many scrapes come; NaN when MongoDB does not answer. */
  private watchBacklog(read: () => Promise<WebhookBacklog>): void {
    let reading: Promise<WebhookBacklog | undefined> | undefined;
    const backlog = () =>
      (reading ??= read()
        .catch(() => undefined)
        .finally(() => {
          reading = undefined;
        }));
    const gauge = (name: string, help: string, value: (backlog: WebhookBacklog) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          const read = await backlog();
          this.set(read === undefined ? Number.NaN : value(read));
        },
      });
    gauge(
      'plant_store_webhook_events_due',
      'New-plant events, and plants with change events, due for delivery now, waiting for an instance to claim them ' +
        '(the same on every instance)',
      (read) => read.due,
    );
    gauge(
      'plant_store_webhook_oldest_due_event_age_seconds',
      'How long the event due longest has waited since it fell due; 0 when none is due (the same on every instance)',
      (read) => (read.oldestDueAt === undefined ? 0 : Math.max(0, (Date.now() - read.oldestDueAt.getTime()) / 1000)),
    );
    gauge(
      'plant_store_webhook_events_failed',
      'New-plant events with a delivery given up on, not replayed, and plants with a change event given up on, not ' +
        'resynced (the same on every instance)',
      (read) => read.failed,
    );
  }
}
