import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { FastifyInstance } from 'fastify';
import { holdFailuresUntilAnswered } from './span-failures.js';
import type { AttemptOutcome } from '../webhooks/send-webhook.js';
import { withQuerySecretsRedacted } from '../http/secret-query.js';
import { loggedUrl } from '../logs/logged-url.js';
import type { ObservedAttempt } from '../webhooks/delivery-worker.js';
import type { WebhookObservers } from '../webhooks/register-webhooks.js';
import type { ApiOperations } from './api-operations.js';
import { NAME_SPAN, type NameSpan, type TracingSdk } from './tracing-sdk.js';

/** The stored trace context is W3C's, whatever propagators the deployment uses for HTTP. */
const W3C = new W3CTraceContextPropagator();

/** Continues the caller's `traceparent`; each webhook attempt's span links to the create that recorded the event. */
export class AppTracing {
  private readonly tracer = trace.getTracer('plant-store');

  constructor(private readonly sdk: TracingSdk) {}

  /** Before any other hook, so each handler runs in its request's context and its MongoDB calls make child spans. */
  async instrument(app: FastifyInstance, operations: ApiOperations): Promise<void> {
    await app.register(this.sdk.fastify.plugin());
    const nameSpan: NameSpan = (span, request) => {
      const { url } = request.routeOptions;
      const route = operations.of(request, url)?.route ?? url;
      span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
      if (route !== undefined) span.setAttribute('http.route', route);
      span.setAttributes(urlAttributes(request.url));
      request.traceId = span.spanContext().traceId;
    };
    app.decorate(NAME_SPAN, nameSpan);
    app.decorateRequest('traceId', undefined);
    // After the instrumentation's own onRequest, which starts the span.
    app.addHook('onRequest', (request, reply, done) => {
      const { span } = request.opentelemetry();
      if (span) holdFailuresUntilAnswered(span, reply);
      done();
    });
    // The last hook before the handler: Fastify calls the handler from `done`, so it runs in the request's context.
    app.addHook('preHandler', (request, _reply, done) => {
      const requestContext = request.opentelemetry().context ?? context.active();
      context.with(requestContext, done);
    });
  }

  /** The traces' part in the webhooks: the create's context kept with its event, and a span around each attempt. */
  webhookObservers(): WebhookObservers {
    return {
      traceparent: () => activeTraceparent(),
      aroundAttempt: (attempt, send) => this.traceAttempt(attempt, send),
    };
  }

  private traceAttempt(
    attempt: ObservedAttempt,
    send: (headers: Record<string, string>) => Promise<AttemptOutcome>,
  ): Promise<AttemptOutcome> {
    const target = new URL(attempt.url);
    const link = linkTo(attempt.traceparent);
    const attributes = {
      'http.request.method': 'POST',
      'url.full': loggedUrl(attempt.url),
      'server.address': target.hostname,
      'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
      'webhook.id': attempt.webhookId,
      'webhook.attempt': attempt.attempt,
    };
    // A span of its own trace: the delivery happens later, on whichever instance claims the event.
    return this.tracer.startActiveSpan(
      'webhook delivery',
      { kind: SpanKind.CLIENT, root: true, links: link ? [link] : [], attributes },
      async (span) => {
        try {
          const headers: Record<string, string> = {};
          propagation.inject(context.active(), headers, defaultTextMapSetter);
          const outcome = await send(headers);
          describeOutcome(span, outcome);
          return outcome;
        } finally {
          span.end();
        }
      },
    );
  }
}

/** The active span's context as a W3C `traceparent`, or undefined outside a valid one. */
function activeTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  W3C.inject(context.active(), carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

function linkTo(traceparent: string | undefined): Link | undefined {
  if (traceparent === undefined) return undefined;
  const spanContext = trace.getSpanContext(W3C.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter));
  return spanContext ? { context: spanContext } : undefined;
}

function describeOutcome(span: Span, outcome: AttemptOutcome): void {
  if (outcome.kind === 'abandoned') {
    span.setAttribute('webhook.abandoned', true);
    return;
  }
  if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
  if (outcome.kind !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
}

/**
 * The instrumentation writes the whole request target to `url.path`; HTTP's conventions keep the query apart, in
 * `url.query`, with its secrets scrubbed as the request log scrubs them.
 */
function urlAttributes(target: string): { 'url.path': string; 'url.query'?: string } {
  const start = target.indexOf('?');
  if (start === -1) return { 'url.path': target };
  return { 'url.path': target.slice(0, start), 'url.query': withQuerySecretsRedacted(target).slice(start + 1) };
}
