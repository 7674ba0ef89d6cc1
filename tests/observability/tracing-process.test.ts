import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { freePort, startService, type ServiceProcess } from '@plant-store/service-launcher';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from '@plant-store/service-launcher';
import { startTraceCollector, type ReceivedSpan, type TraceCollector } from '../helpers/trace-collector.js';

const TOKEN = 'tracing-test-token';
const json = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const SERVER = 2;
const CLIENT = 3;

/**
 * The service process with the standard OTEL_* variables pointing at a local OTLP/HTTP receiver:
 * the spans of a request arrive, with the caller's trace continued, the MongoDB commands as
 * children, and the webhook delivery as a client span linked to the create.
 */
describe.each(['on', 'off'])('traces of the service process over OTLP/HTTP JSON, FAST_PATH=%s', (fastPath) => {
  let collector: TraceCollector;
  let webhooks: WebhookReceiver;
  let service: ServiceProcess;

  beforeAll(async () => {
    collector = await startTraceCollector('http/json');
    const secret = newWebhookSecret();
    webhooks = await startWebhookReceiver({ secret });
    service = await startService({
      MONGODB_URI: testMongoUri(),
      API_TOKENS: TOKEN,
      FAST_PATH: fastPath,
      LOG_LEVEL: 'info',
      ...collector.env,
      OTEL_SERVICE_NAME: 'plant-store-under-test',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      WEBHOOK_URLS: webhooks.url('/hook'),
      WEBHOOK_SECRET: secret,
    });
  });

  afterAll(async () => {
    expect(await service.stop()).toBe(0);
    await webhooks.close();
    await collector.close();
  });

  it('continues the caller traceparent in one server span named after the route, with the MongoDB insert as its child, and logs the trace id', async () => {
    const { response, traceId, insert } = await createTraced(service.url, collector);
    expect(insert?.attributes['db.system'] ?? insert?.attributes['db.system.name']).toBe('mongodb');

    // The log line is written once the answer has gone out, so it may come just after it.
    await vi.waitFor(
      () => {
        const line = service
          .output()
          .split('\n')
          .find((text) => text.includes('"request completed"') && text.includes(`"reqId":"${response.headers.get('x-request-id')}"`));
        expect(line && (JSON.parse(line) as { traceId?: string }).traceId).toBe(traceId);
      },
      { timeout: 5_000 },
    );
  });

  it('names tRPC spans after the procedure route, never the raw query', async () => {
    const { response, servers } = await getTraced(
      service.url,
      collector,
      `/trpc/getPlant?input=${encodeURIComponent(JSON.stringify({ id: 1 }))}`,
    );
    expect(response.status).toBe(404);
    expect(servers.map((span) => span.name)).toStrictEqual(['GET /trpc/getPlant']);
  });

  it('keeps the query out of url.path, and its secret values out of url.query, as the request log does', async () => {
    const secret = `query-secret-${randomBytes(6).toString('hex')}`;
    const { servers } = await getTraced(service.url, collector, `/plants?limit=2&access_token=${secret}`);
    expect(servers.map(({ attributes }) => [attributes['url.path'], attributes['url.query']])).toStrictEqual([
      ['/plants', 'limit=2&access_token=[REDACTED]'],
    ]);
    expect(JSON.stringify(servers)).not.toContain(secret);
  });

  it("leaves a refused request's span status unset, with no exception recorded, as HTTP's conventions ask below 500", async () => {
    const refused = [
      { url: `/plants/${randomInt(1_000_000_000, 2_000_000_000)}`, headers: json, status: 404 },
      { url: '/plants/1', headers: {}, status: 401 },
      { url: `/trpc/getPlant?input=${encodeURIComponent('{"id":1999999999}')}`, headers: json, status: 404 },
    ];
    for (const { url, headers, status } of refused) {
      const {
        response,
        servers: [server],
      } = await getTraced(service.url, collector, url, headers);
      expect(response.status).toBe(status);
      expect(String(server?.attributes['http.response.status_code'])).toBe(String(status));
      expect(server?.status?.code, `${status}: ${server?.status?.message}`).toBe(0);
      expect(server?.events).toStrictEqual([]);
    }
  });

  it('delivers the webhook in a client span linked to the create, and sends its traceparent to the receiver', async () => {
    const traceId = randomBytes(16).toString('hex');
    const id = 700_000 + Math.floor(Math.random() * 100_000);
    const response = await fetch(`${service.url}/plants`, {
      method: 'POST',
      headers: { ...json, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: JSON.stringify({ id, name: 'Hooked' }),
    });
    expect(response.status).toBe(200);
    await webhooks.waitFor((received) => received.some((webhook) => webhook.body.includes(`"id":${id}`)));
    const delivered = webhooks.received.find((webhook) => webhook.body.includes(`"id":${id}`));
    const sentTraceparent = String(delivered?.headers.traceparent);
    expect(sentTraceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const [, deliveryTrace, deliverySpan] = sentTraceparent.split('-');

    await collector.waitFor(
      (spans) =>
        spans.some((span) => span.spanId === deliverySpan) && spans.some((span) => span.traceId === traceId && span.kind === SERVER),
    );
    const create = collector.spans.find((span) => span.traceId === traceId && span.kind === SERVER);
    const delivery = collector.spans.find((span) => span.spanId === deliverySpan);
    expect(delivery).toMatchObject({ name: 'webhook delivery', kind: CLIENT, traceId: deliveryTrace });
    expect(delivery?.links).toContainEqual({ traceId, spanId: create?.spanId });
    expect(delivery?.attributes['http.response.status_code']).toBe(200);
  });
});

/**
 * The other wires an operator's collector may speak: the same server span, its MongoDB child and
 * the service's name arrive, decoded by the stand-in collector.
 */
describe.each(['http/protobuf', 'grpc', 'zipkin'] as const)('traces of the service process over %s', (wire) => {
  let collector: TraceCollector;
  let service: ServiceProcess;

  beforeAll(async () => {
    collector = await startTraceCollector(wire);
    service = await startService({
      MONGODB_URI: testMongoUri(),
      API_TOKENS: TOKEN,
      OTEL_SERVICE_NAME: 'plant-store-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      ...collector.env,
    });
  });

  afterAll(async () => {
    expect(await service.stop()).toBe(0);
    await collector.close();
  });

  it('sends the server span named after the route, in the caller trace, with the MongoDB insert below it', async () => {
    await createTraced(service.url, collector);
    expect(collector.requests[0]).toMatchObject(EXPORT_REQUESTS[wire]);
    expect(collector.errors).toStrictEqual([]);
  });
});

describe('traces sent to a collector that is not there, or refuses them', () => {
  it.each(['absent', 'refusing'] as const)(
    '%s: warnings are JSON log lines, never text, and the exit waits 2 s at most',
    async (collector) => {
      // A collector that answers every export 400, as one does to a payload it cannot read.
      const refusing = createServer((request, response) => {
        request.resume();
        request.on('end', () => response.writeHead(400, { 'content-type': 'text/plain' }).end('no'));
      });
      const port = collector === 'absent' ? await freePort() : await listenOn(refusing);
      const service = await startService({
        MONGODB_URI: testMongoUri(),
        API_TOKENS: TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        // Longer than the test: the span still waits to be sent when the service closes.
        OTEL_BSP_SCHEDULE_DELAY: '60000',
        LOG_LEVEL: 'warn',
      });
      try {
        const id = randomInt(600_000, 900_000);
        const created = await fetch(`${service.url}/plants`, { method: 'POST', headers: json, body: JSON.stringify({ id, name: 'Lost' }) });
        expect(created.status).toBe(200);
        const stoppingAt = performance.now();
        expect(await service.stop()).toBe(0);
        expect(performance.now() - stoppingAt).toBeLessThan(4_000);
        const lines = service
          .output()
          .split('\n')
          .filter((line) => line !== '');
        expect(lines.filter((line) => !line.startsWith('{"level":'))).toStrictEqual([]);
        const warnings = lines
          .map((line) => JSON.parse(line) as { level: number; msg: string })
          .filter(({ msg }) => msg.startsWith('opentelemetry:'));
        expect(warnings.length).toBeGreaterThanOrEqual(1);
        expect(warnings.every(({ level }) => level === 40)).toBe(true);
      } finally {
        refusing.close();
      }
    },
  );
});

function listenOn(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

describe.each(['on', 'off'])('the span of a request answered 5xx, FAST_PATH=%s', (fastPath) => {
  it('is marked an error over REST, with the exception recorded, and over /trpc, a batch too', async () => {
    const collector = await startTraceCollector('http/json');
    const service = await startService({
      MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}/plantstore`,
      MONGODB_TIMEOUT_MS: '300',
      API_TOKENS: TOKEN,
      FAST_PATH: fastPath,
      ...collector.env,
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
      const failing = [
        { url: '/plants/1', exception: true },
        { url: `/trpc/getPlant?input=${input({ id: 1 })}`, exception: false },
        { url: `/trpc/getPlant,getPlant?batch=1&input=${input({ 0: { id: 1 }, 1: { id: 2 } })}`, exception: false },
      ];
      for (const { url, exception } of failing) {
        const {
          response,
          servers: [server],
        } = await getTraced(service.url, collector, url);
        expect(response.status, url).toBe(503);
        expect(server?.status?.code, url).toBe(2);
        if (exception) expect(server?.events, url).toContain('exception');
      }
    } finally {
      expect(await service.stop()).toBe(0);
      await collector.close();
    }
  });
});

/** A GET sent within a new trace of the caller's, and the server spans of that trace once one has arrived. */
async function getTraced(serviceUrl: string, collector: TraceCollector, url: string, headers: Record<string, string> = json) {
  const traceId = randomBytes(16).toString('hex');
  const response = await fetch(`${serviceUrl}${url}`, {
    headers: { ...headers, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
  });
  const ofTrace = (span: ReceivedSpan) => span.traceId === traceId && span.kind === SERVER;
  await collector.waitFor((spans) => spans.some(ofTrace));
  return { response, servers: collector.spans.filter(ofTrace) };
}

/**
 * Creates a plant within a trace of the caller's, waits for its spans, and checks what every wire
 * carries: one server span named after the route, a child of the caller's span, with the service's
 * name, the route and the status, and the MongoDB insert below it.
 */
async function createTraced(serviceUrl: string, collector: TraceCollector) {
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');
  const id = randomInt(600_000, 900_000);
  const response = await fetch(`${serviceUrl}/plants`, {
    method: 'POST',
    headers: { ...json, traceparent: `00-${traceId}-${callerSpanId}-01` },
    body: JSON.stringify({ id, name: 'Traced' }),
  });
  expect(response.status).toBe(200);

  await collector.waitFor(
    (spans) =>
      spans.some((span) => span.traceId === traceId && span.kind === SERVER) &&
      spans.some((span) => span.traceId === traceId && span.name.includes('insert')),
  );
  const inTrace = collector.spans.filter((span) => span.traceId === traceId);
  const servers = inTrace.filter((span) => span.kind === SERVER);
  expect(servers.map((span) => span.name)).toStrictEqual(['POST /plants']);
  const [server] = servers;
  expect(server).toMatchObject({ parentSpanId: callerSpanId, service: 'plant-store-under-test' });
  expect(server?.attributes['http.route']).toBe('/plants');
  // An integer attribute (Zipkin's tags are strings).
  expect(String(server?.attributes['http.response.status_code'])).toBe('200');
  const insert = inTrace.find((span) => span.name.includes('insert'));
  expect(ancestors(inTrace, insert)).toContain(server?.spanId);
  return { response, traceId, insert };
}

/** Where and how each wire's exports arrive. */
const EXPORT_REQUESTS = {
  'http/protobuf': { path: '/v1/traces', contentType: 'application/x-protobuf' },
  grpc: { path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export', contentType: 'application/grpc' },
  zipkin: { path: '/api/v2/spans', contentType: 'application/json' },
};

/** The span ids above `span` in its trace, nearest first. */
function ancestors(
  spans: readonly { spanId: string; parentSpanId: string | undefined }[],
  span: { parentSpanId: string | undefined } | undefined,
): string[] {
  const found: string[] = [];
  for (
    let parent = span?.parentSpanId;
    parent !== undefined && !found.includes(parent);
    parent = spans.find((candidate) => candidate.spanId === parent)?.parentSpanId
  )
    found.push(parent);
  return found;
}
