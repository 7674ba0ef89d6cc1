import { setMaxListeners } from 'node:events';

/** Why an operation was abandoned: MongoDB did not answer within MONGODB_TIMEOUT_MS. */
export class MongoDeadlineError extends Error {
  override name = 'MongoDeadlineError';
  constructor(readonly timeoutMs: number) {
    super(`MongoDB did not answer within ${timeoutMs} ms`);
  }
}

/** Operations started this close together share one signal and one timer. */
const MAX_SLOT_MS = 100;

/**
 * A deadline for each MongoDB operation as a whole, as an AbortSignal, which the driver honours at
 * every stage: server selection, connection checkout, the socket write and read, and its retries.
 * (The driver's own `timeoutMS` has no effect in this version; its per-stage timeouts add up, a
 * retried read waiting for three of them.) An aborted operation's connection is closed, never reused.
 *
 * Operations started in the same slot share a signal, aborted `timeoutMs + slot` after the slot
 * opened, so each gets between `timeoutMs` and `timeoutMs + slot`, and a busy service arms one timer
 * per slot rather than one per operation.
 */
export class OperationDeadlines {
  private readonly slotMs: number;
  private current: AbortSignal | undefined;
  private currentUntil = 0;

  constructor(private readonly timeoutMs: number) {
    this.slotMs = Math.min(MAX_SLOT_MS, Math.ceil(timeoutMs / 10));
  }

  /** The signal for an operation starting now. */
  signal(): AbortSignal {
    const now = performance.now();
    if (this.current !== undefined && now < this.currentUntil) return this.current;
    const controller = new AbortController();
    // Every operation in flight in the slot listens to it: that is no leak.
    setMaxListeners(0, controller.signal);
    setTimeout(() => {
      controller.abort(new MongoDeadlineError(this.timeoutMs));
    }, this.timeoutMs + this.slotMs).unref();
    this.current = controller.signal;
    this.currentUntil = now + this.slotMs;
    return controller.signal;
  }
}
