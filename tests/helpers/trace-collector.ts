// A trace collector stand-in on loopback, for each way the service can export spans: OTLP over
// HTTP (JSON or protobuf, at /v1/traces), OTLP over gRPC (TraceService/Export) and Zipkin's v2
// JSON (at /api/v2/spans). Every export is decoded into the same spans, so one test reads them
// whatever the wire.
import { createServer, type IncomingMessage } from 'node:http';
import { Server, ServerCredentials, status, type ServiceDefinition } from '@grpc/grpc-js';
import { listenOnLoopback } from '@plant-store/service-launcher';
import protobuf from 'protobufjs';

/** A span as the collector received it (ids in hex), with its resource's service name. */
export interface ReceivedSpan {
  service: string | undefined;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** OTLP's status code (0 unset, 1 ok, 2 error) and message; Zipkin's spans leave it undefined. */
  status: { code: number; message?: string | undefined } | undefined;
  /** The names of the span's events, such as `exception`. */
  events: string[];
}

export type CollectorWire = 'http/json' | 'http/protobuf' | 'grpc' | 'zipkin';

export interface TraceCollector {
  /** The service's OTEL_* variables that send its spans here. */
  readonly env: Record<string, string>;
  readonly spans: ReceivedSpan[];
  /** Each export as it came: path (the gRPC method's, for gRPC) and content type. */
  readonly requests: { path: string; contentType: string | undefined }[];
  /** Exports it could not decode (answered 400), so a test that waits says why nothing came. */
  readonly errors: string[];
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A collector for `wire`, on a free loopback port. */
export async function startTraceCollector(wire: CollectorWire): Promise<TraceCollector> {
  const spans: ReceivedSpan[] = [];
  const requests: TraceCollector['requests'] = [];
  const errors: string[] = [];
  const receive = (path: string, contentType: string | undefined, decode: () => ReceivedSpan[]): boolean => {
    requests.push({ path, contentType });
    try {
      spans.push(...decode());
      return true;
    } catch (error) {
      errors.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  };
  const { endpoint, close } = wire === 'grpc' ? await listenGrpc(receive) : await listenHttp(receive);
  const env: Record<string, string> =
    wire === 'zipkin'
      ? { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${endpoint}/api/v2/spans` }
      : { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: wire };
  return {
    env,
    spans,
    requests,
    errors,
    waitFor: async (predicate, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(
            `the spans awaited did not come; received: ${JSON.stringify(spans.map((span) => span.name))}; undecodable exports: ${JSON.stringify(errors)}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close,
  };
}

/** Records an export and decodes it; false when it could not be decoded. */
type Receive = (path: string, contentType: string | undefined, decode: () => ReceivedSpan[]) => boolean;

async function listenHttp(receive: Receive): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const path = request.url ?? '';
      const contentType = request.headers['content-type'];
      const json = contentType?.startsWith('application/json') ?? false;
      const decoded = receive(path, contentType, () => {
        if (path === '/api/v2/spans') return fromZipkin(JSON.parse(body.toString()) as ZipkinSpan[]);
        return fromOtlp(json ? (JSON.parse(body.toString()) as OtlpExport) : decodeOtlpProtobuf(body));
      });
      if (!decoded) response.writeHead(400).end();
      else if (path === '/api/v2/spans') response.writeHead(202).end();
      else if (json) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return { endpoint: origin, close };
}

/** OTLP's trace service, with the messages passed as bytes: the collector decodes them itself. */
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const asBytes = (value: Buffer): Buffer => value;
const TRACE_SERVICE: ServiceDefinition = {
  Export: {
    path: EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: asBytes,
    requestDeserialize: asBytes,
    responseSerialize: asBytes,
    responseDeserialize: asBytes,
  },
};

async function listenGrpc(receive: Receive): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const server = new Server();
  server.addService(TRACE_SERVICE, {
    Export: (call: { request: Buffer }, respond: (error: { code: number; details: string } | null, response?: Buffer) => void) => {
      if (receive(EXPORT_PATH, 'application/grpc', () => fromOtlp(decodeOtlpProtobuf(call.request)))) {
        // An empty ExportTraceServiceResponse: every span accepted.
        respond(null, Buffer.alloc(0));
      } else respond({ code: status.INVALID_ARGUMENT, details: 'not an ExportTraceServiceRequest' });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => {
      if (error) reject(error);
      else resolve(bound);
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      server.forceShutdown();
      return Promise.resolve();
    },
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// OTLP, as its JSON encoding carries it (ids in hex); its protobuf encoding is decoded into the same shape.
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
  events?: { name: string }[];
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/**
 * The fields of ExportTraceServiceRequest that the tests read, with their numbers from
 * opentelemetry-proto (collector/trace/v1, trace/v1, resource/v1, common/v1); others are skipped.
 */
const EXPORT_TRACE_SERVICE_REQUEST = protobuf.Root.fromJSON({
  nested: {
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
    ResourceSpans: { fields: { resource: { type: 'Resource', id: 1 }, scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 } } },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        events: { rule: 'repeated', type: 'Event', id: 11 },
        links: { rule: 'repeated', type: 'Link', id: 13 },
        status: { type: 'Status', id: 15 },
      },
    },
    Event: { fields: { name: { type: 'string', id: 2 } } },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    Link: { fields: { traceId: { type: 'bytes', id: 1 }, spanId: { type: 'bytes', id: 2 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
      },
    },
  },
}).lookupType('ExportTraceServiceRequest');

const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('hex');

function decodeOtlpProtobuf(body: Uint8Array): OtlpExport {
  const message = EXPORT_TRACE_SERVICE_REQUEST.toObject(EXPORT_TRACE_SERVICE_REQUEST.decode(body), { longs: Number }) as {
    resourceSpans?: {
      resource?: { attributes?: OtlpAttribute[] };
      scopeSpans?: {
        spans?: (Omit<OtlpSpan, 'traceId' | 'spanId' | 'parentSpanId' | 'links'> &
          Record<'traceId' | 'spanId' | 'parentSpanId', Uint8Array | undefined> & { links?: Record<'traceId' | 'spanId', Uint8Array>[] })[];
      }[];
    }[];
  };
  return {
    resourceSpans: (message.resourceSpans ?? []).map(({ resource, scopeSpans = [] }) => ({
      ...(resource && { resource }),
      scopeSpans: scopeSpans.map(({ spans = [] }) => ({
        spans: spans.map((span) => ({
          ...span,
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          links: (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
        })),
      })),
    })),
  };
}

function fromOtlp(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service: typeof service === 'string' ? service : undefined,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        status: { code: span.status?.code ?? 0, message: span.status?.message },
        events: (span.events ?? []).map(({ name }) => name),
      })),
    );
  });
}

function attributesOf(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue]),
  );
}

/** A span in Zipkin's v2 JSON, which has tags (strings) for attributes and no links. */
interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string;
  name: string;
  kind?: 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';
  localEndpoint?: { serviceName?: string };
  tags?: Record<string, string>;
}

const ZIPKIN_KINDS: Record<string, number> = { SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };

function fromZipkin(spans: ZipkinSpan[]): ReceivedSpan[] {
  return spans.map((span) => ({
    service: span.localEndpoint?.serviceName,
    traceId: span.traceId,
    spanId: span.id,
    parentSpanId: span.parentId,
    name: span.name,
    kind: span.kind === undefined ? 1 : (ZIPKIN_KINDS[span.kind] ?? 0),
    attributes: span.tags ?? {},
    links: [],
    status: undefined,
    events: [],
  }));
}
