import { SpanStatusCode, type Exception, type Span, type SpanStatus, type TimeInput } from '@opentelemetry/api';

/**
 * @fastify/otel marks a request's span an error, and records the exception, for any error thrown to Fastify, before the
 * error handler has chosen the status. HTTP's semantic conventions leave a server span's status unset below 500, so both
 * wait for the answer here, and only a 5xx keeps them.
 */
export class AnswerOutcome {
  private status: number | undefined;
  private held: (() => void)[] = [];

  constructor(span: Span) {
    const setStatus = span.setStatus.bind(span);
    const recordException = span.recordException.bind(span);
    span.setStatus = (status: SpanStatus) => {
      if (status.code === SpanStatusCode.ERROR) this.ifServerFailed(() => setStatus(status));
      else setStatus(status);
      return span;
    };
    span.recordException = (exception: Exception, time?: TimeInput) => {
      this.ifServerFailed(() => {
        recordException(exception, time);
      });
    };
  }

  answered(status: number): void {
    this.status = status;
    const held = this.held;
    this.held = [];
    if (status >= 500) for (const apply of held) apply();
  }

  private ifServerFailed(apply: () => void): void {
    if (this.status === undefined) this.held.push(apply);
    else if (this.status >= 500) apply();
  }
}
