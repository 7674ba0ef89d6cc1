import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, MongoClient, ServerHeartbeatFailedEvent } from 'mongodb';
import { createMongoClient } from './mongo-client.js';
import { OperationDeadlines } from './operation-deadlines.js';

/** What the plant store and the webhook worker ask of the database they run on. */
export interface OperationGuard {
  /** The signal to give an operation starting now: it aborts the operation after MONGODB_TIMEOUT_MS. */
  signal(): AbortSignal;
  /** An operation failed because MongoDB is unavailable (and its caller answers 503). */
  unavailable(error: unknown): void;
}

export interface MongoDatabaseOptions {
  uri: string;
  dbName: string;
  timeoutMs: number;
  /** The driver's command events, for the metrics. */
  monitorCommands?: boolean | undefined;
}

/** Between two pings while MongoDB is away, at least this long. */
const RETRY_MS = 500;
/**
 * How long a connect may wait for a server. Operations are bounded by their deadlines, not by this:
 * it is long so that a server which appears is found by the connect under way (within the half
 * second the driver's monitor takes), rather than just after that connect gave up and closed its
 * topology, which would refuse the requests waiting on it.
 */
const CONNECT_PATIENCE_MS = 30_000;
/** At most one warning this often: a long outage is recalled, and a flapping one is not logged at every turn. */
const WARN_EVERY_MS = 30_000;

interface Outage {
  since: number;
  /** Operations refused since it began. */
  refused: number;
  /** Whether a warning told of it; only then does a line tell of its end. */
  told: boolean;
}

/**
 * The service's MongoDB: one client, a deadline for every operation, and the one place that
 * notices, logs and heals an outage.
 *
 * Healing: once connected, the driver finds a server that went away again by itself. What it does
 * not do is recover from a failed first connect: it closes that client's topology for good, and
 * every later operation fails at once with "Topology is closed". So this class connects as soon as
 * the app is ready, and while MongoDB is unavailable it pings every half second until it answers,
 * calling `connect()` again whenever no connect is under way (a no-op on a connected client, a fresh
 * topology on one whose connect failed). Only this loop connects, one connect at a time, and it
 * stops when the client is closed.
 *
 * Logging: the first operation refused for want of MongoDB logs one warning with its cause and
 * the server addresses, a reminder follows every 30 s while it lasts, and one info line says when
 * MongoDB answers again, how long it was away and how many operations were refused meanwhile. An
 * outage that begins within 30 s of the last warning (such as the late failures of operations
 * that began before MongoDB answered again) is told by the next reminder, if it lasts that long.
 * An operation that succeeds costs nothing here.
 */
export class MongoDatabase implements OperationGuard {
  readonly client: MongoClient;
  readonly db: Db;
  private readonly deadlines: OperationDeadlines;
  private readonly servers: string;
  private outage: Outage | undefined;
  private healing: Promise<void> | undefined;
  private connecting: Promise<void> | undefined;
  private lastHeartbeatFailure: ServerHeartbeatFailedEvent | undefined;
  private warnedAt = Number.NEGATIVE_INFINITY;
  private readonly closing = new AbortController();

  constructor(
    private readonly options: MongoDatabaseOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.client = createMongoClient({ ...options, serverSelectionTimeoutMs: Math.max(options.timeoutMs, CONNECT_PATIENCE_MS) });
    this.db = this.client.db(options.dbName);
    this.deadlines = new OperationDeadlines(options.timeoutMs);
    this.servers = this.client.options.hosts.map(String).join(',');
    // The driver's monitor says why a server cannot be reached, which an abandoned operation cannot.
    this.client.on('serverHeartbeatFailed', (event) => {
      this.lastHeartbeatFailure = event;
    });
    this.client.on('serverHeartbeatSucceeded', () => {
      this.lastHeartbeatFailure = undefined;
    });
  }

  signal(): AbortSignal {
    return this.deadlines.signal();
  }

  /** Connects now rather than at the first request, so that an unreachable MongoDB is logged, and retried, at once. */
  start(): void {
    this.heal();
  }

  unavailable(error: unknown): void {
    if (this.isClosed()) return;
    this.noteFailure(error);
    if (this.outage) this.outage.refused += 1;
    this.heal();
  }

  /**
   * Stops healing and closes the client; operations still waiting fail at once. Closing tells
   * MongoDB to end the client's sessions, a courtesy that waits for an answer: during an outage
   * it is not waited for, and otherwise for MONGODB_TIMEOUT_MS at most; the close finishes
   * in the background after that.
   */
  async close(): Promise<void> {
    this.closing.abort();
    const closed = this.closeClient().catch((error: unknown) => {
      this.log.warn({ err: error }, 'closing the MongoDB client failed');
    });
    await Promise.race([closed, sleep(this.outage === undefined ? this.options.timeoutMs : 0, undefined, { ref: false })]);
  }

  private async closeClient(): Promise<void> {
    await this.client.close();
    await Promise.all([this.healing, this.connecting]);
    // A connect() that was resolving DNS (mongodb+srv) when the client closed may have opened a topology since.
    await this.client.close();
  }

  private heal(): void {
    if (this.isClosed()) return;
    this.healing ??= this.healUntilAnswered().finally(() => {
      this.healing = undefined;
    });
  }

  private async healUntilAnswered(): Promise<void> {
    while (!this.isClosed()) {
      const started = performance.now();
      this.connect();
      try {
        await this.db.command({ ping: 1 }, { signal: this.signal() });
        this.answered();
        return;
      } catch (error) {
        if (this.isClosed()) return;
        this.noteFailure(error);
      }
      const pause = RETRY_MS - (performance.now() - started);
      if (pause > 0) await sleep(pause, undefined, { signal: this.closing.signal }).catch(() => undefined);
    }
  }

  private isClosed(): boolean {
    return this.closing.signal.aborted;
  }

  private connect(): void {
    this.connecting ??= this.client
      .connect()
      .then(
        () => undefined,
        (error: unknown) => {
          if (!this.isClosed()) this.noteFailure(error);
        },
      )
      .finally(() => {
        this.connecting = undefined;
      });
  }

  private noteFailure(cause: unknown): void {
    const now = Date.now();
    this.outage ??= { since: now, refused: 0, told: false };
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    const { outage } = this;
    if (outage.told) {
      this.log.warn({ ...this.describe(cause), downMs: now - outage.since, refused: outage.refused }, 'MongoDB is still unavailable');
    } else {
      outage.told = true;
      this.log.warn(this.describe(cause), 'MongoDB is unavailable: requests are answered 503 until it answers again');
    }
  }

  private answered(): void {
    const { outage } = this;
    this.outage = undefined;
    if (outage?.told)
      this.log.info({ servers: this.servers, downMs: Date.now() - outage.since, refused: outage.refused }, 'MongoDB answers again');
  }

  private describe(cause: unknown): Record<string, string> {
    const heartbeat = this.lastHeartbeatFailure;
    return {
      cause: errorLine(cause),
      servers: this.servers,
      ...(heartbeat && { monitor: `${heartbeat.connectionId}: ${errorLine(heartbeat.failure)}` }),
    };
  }
}

/** `Name: message`, the way the driver's errors read in a log line. */
function errorLine(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
