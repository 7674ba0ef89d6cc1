import { SpanStatusCode, type Exception, type Span, type SpanStatus, type TimeInput } from '@opentelemetry/api';
import type { FastifyReply } from 'fastify';

/**
 * @fastify/otel marks a request's span an error, and records the exception, for any error thrown to Fastify, before the
 * status is chosen. HTTP's semantic conventions leave a server span's status unset below 500, so both wait for the span's
 * end, when the answer's status is final, and only a 5xx (or an answer never known) keeps them.
 */
export class AnswerOutcome {
  private reply: FastifyReply | undefined;
  private held: (() => void)[] = [];

  constructor(span: Span) {
    const setStatus = span.setStatus.bind(span);
    const recordException = span.recordException.bind(span);
    const end = span.end.bind(span);
    span.setStatus = (status: SpanStatus) => {
      if (status.code === SpanStatusCode.ERROR) this.held.push(() => setStatus(status));
      else setStatus(status);
      return span;
    };
    span.recordException = (exception: Exception, time: TimeInput = new Date()) => {
      this.held.push(() => {
        recordException(exception, time);
      });
    };
    span.end = (endTime?: TimeInput) => {
      if ((this.reply?.statusCode ?? 500) >= 500) for (const apply of this.held) apply();
      this.held = [];
      end(endTime);
    };
  }

  answers(reply: FastifyReply): void {
    this.reply = reply;
  }
}
