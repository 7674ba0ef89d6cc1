import { setMaxListeners } from 'node:events';

export class MongoDeadlineError extends Error {
  override name = 'MongoDeadlineError';
  constructor(readonly timeoutMs: number) {
    super(`MongoDB did not answer within ${timeoutMs} ms`);
  }
}

/** Operations started this close together share one signal and one timer. */
const MAX_SLOT_MS = 100;

/**
 * A deadline for each operation as a whole, as an AbortSignal the driver honours at every stage: its own `timeoutMS`
 * has no effect in this version. Operations in one slot share a signal, so a busy service arms one timer per slot.
 */
export class OperationDeadlines {
  private readonly slotMs: number;
  private current: AbortSignal | undefined;
  private currentUntil = 0;

  constructor(private readonly timeoutMs: number) {
    this.slotMs = Math.min(MAX_SLOT_MS, Math.ceil(timeoutMs / 10));
  }

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
