import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { startService, type ServiceProcess } from '@plant-store/service-launcher';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from '@plant-store/service-launcher';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

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
  let collector: OtlpReceiver;
  let webhooks: WebhookReceiver;
  let service: ServiceProcess;

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    const secret = newWebhookSecret();
    webhooks = await startWebhookReceiver({ secret });
    service = await startService({
      MONGODB_URI: testMongoUri(),
      API_TOKENS: TOKEN,
      FAST_PATH: fastPath,
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
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
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const id = 600_000 + Math.floor(Math.random() * 100_000);
    const response = await fetch(`${service.url}/plants`, { method: 'POST', headers: { ...json, traceparent: `00-${traceId}-${callerSpanId}-01` }, body: JSON.stringify({ id, name: 'Traced' }) });
    expect(response.status).toBe(200);

    await collector.waitFor((spans) => spans.some((span) => span.traceId === traceId && span.kind === SERVER) && spans.some((span) => span.traceId === traceId && span.name.includes('insert')));
    const inTrace = collector.spans.filter((span) => span.traceId === traceId);
    const servers = inTrace.filter((span) => span.kind === SERVER);
    expect(servers.map((span) => span.name)).toStrictEqual(['POST /plants']);
    const [server] = servers;
    expect(server?.parentSpanId).toBe(callerSpanId);
    expect(server?.service).toBe('plant-store-under-test');
    expect(server?.attributes['http.route']).toBe('/plants');
    const insert = inTrace.find((span) => span.name.includes('insert'));
    expect(insert?.attributes['db.system'] ?? insert?.attributes['db.system.name']).toBe('mongodb');
    expect(ancestors(inTrace, insert)).toContain(server?.spanId);

    const line = service
      .output()
      .split('\n')
      .find((text) => text.includes('"request completed"') && text.includes(`"reqId":"${response.headers.get('x-request-id')}"`));
    expect(line && (JSON.parse(line) as { traceId?: string }).traceId).toBe(traceId);
  });

  it('names tRPC spans after the procedure route, never the raw query', async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await fetch(`${service.url}/trpc/getPlant?input=${encodeURIComponent(JSON.stringify({ id: 1 }))}`, {
      headers: { ...json, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(response.status).toBe(404);
    await collector.waitFor((spans) => spans.some((span) => span.traceId === traceId && span.kind === SERVER));
    expect(collector.spans.filter((span) => span.traceId === traceId && span.kind === SERVER).map((span) => span.name)).toStrictEqual(['GET /trpc/getPlant']);
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

    await collector.waitFor((spans) => spans.some((span) => span.spanId === deliverySpan) && spans.some((span) => span.traceId === traceId && span.kind === SERVER));
    const create = collector.spans.find((span) => span.traceId === traceId && span.kind === SERVER);
    const delivery = collector.spans.find((span) => span.spanId === deliverySpan);
    expect(delivery).toMatchObject({ name: 'webhook delivery', kind: CLIENT, traceId: deliveryTrace });
    expect(delivery?.links).toContainEqual({ traceId, spanId: create?.spanId });
    expect(delivery?.attributes['http.response.status_code']).toBe(200);
  });
});

describe('traces over OTLP/HTTP protobuf', () => {
  it('exports to /v1/traces as application/x-protobuf', async () => {
    const collector = await startOtlpReceiver();
    const service = await startService({
      MONGODB_URI: testMongoUri(),
      API_TOKENS: TOKEN,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      expect((await fetch(`${service.url}/plants/1`, { headers: json })).status).toBe(404);
      const deadline = Date.now() + 15_000;
      while (collector.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(collector.requests[0]).toMatchObject({ path: '/v1/traces', contentType: 'application/x-protobuf' });
      expect(collector.requests[0]?.bytes).toBeGreaterThan(0);
    } finally {
      expect(await service.stop()).toBe(0);
      await collector.close();
    }
  });
});

/** The span ids above `span` in its trace, nearest first. */
function ancestors(spans: readonly { spanId: string; parentSpanId: string | undefined }[], span: { parentSpanId: string | undefined } | undefined): string[] {
  const found: string[] = [];
  for (let parent = span?.parentSpanId; parent !== undefined && !found.includes(parent); parent = spans.find((candidate) => candidate.spanId === parent)?.parentSpanId) found.push(parent);
  return found;
}
