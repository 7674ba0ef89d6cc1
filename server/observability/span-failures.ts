import { SpanStatusCode, type Exception, type Span, type SpanStatus, type TimeInput } from '@opentelemetry/api';
import type { FastifyReply } from 'fastify';

/**
 * @fastify/otel marks a request's span an error, and records the exception, for any error thrown to Fastify, before the
 * status is chosen. HTTP's semantic conventions leave a server span's status unset below 500, so both wait for the span's
 * end, when the answer's status is final, and only a 5xx keeps them.
 */
export function holdFailuresUntilAnswered(span: Span, reply: FastifyReply): void {
  let held: (() => void)[] = [];
  const setStatus = span.setStatus.bind(span);
  const recordException = span.recordException.bind(span);
  const end = span.end.bind(span);
  span.setStatus = (status: SpanStatus) => {
    if (status.code === SpanStatusCode.ERROR) held.push(() => setStatus(status));
    else setStatus(status);
    return span;
  };
  span.recordException = (exception: Exception, time: TimeInput = new Date()) => {
    held.push(() => {
      recordException(exception, time);
    });
  };
  span.end = (endTime?: TimeInput) => {
    if (reply.statusCode >= 500) for (const apply of held) apply();
    held = [];
    end(endTime);
  };
}
