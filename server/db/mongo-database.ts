import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, MongoClient, ServerHeartbeatFailedEvent } from 'mongodb';
import { createMongoClient } from './mongo-client.js';
import { OperationDeadlines } from './operation-deadlines.js';

export interface OperationGuard {
  signal(): AbortSignal;
  unavailable(error: unknown): void;
}

export interface MongoDatabaseOptions {
  uri: string;
  dbName: string;
  timeoutMs: number;
  monitorCommands?: boolean | undefined;
}

const RETRY_MS = 500;
/** Long, so a server that appears is found by the connect under way, not after it gave up and closed its topology. */
const CONNECT_PATIENCE_MS = 30_000;
/** A long outage is recalled, and a flapping one is not logged at every turn. */
const WARN_EVERY_MS = 30_000;

interface Outage {
  since: number;
  refused: number;
  /** Only an outage a warning told of gets a line at its end. */
  told: boolean;
}

/**
 * The one place that notices, logs and heals a MongoDB outage. After a failed first connect the driver's topology
 * stays closed for good, so while MongoDB is away this pings and calls `connect()` again, one connect at a time.
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

  /** Now rather than at the first request, so an unreachable MongoDB is logged, and retried, at once. */
  start(): void {
    this.heal();
  }

  unavailable(error: unknown): void {
    if (this.isClosed()) return;
    this.noteFailure(error);
    if (this.outage) this.outage.refused += 1;
    this.heal();
  }

  /** Ending sessions is a courtesy that waits for MongoDB: not waited for during an outage, else MONGODB_TIMEOUT_MS at most. */
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

function errorLine(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
