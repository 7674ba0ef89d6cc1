import { MongoClient } from 'mongodb';

export interface MongoClientOptions {
  uri: string;
  /**
   * How long connecting to a server, and then waiting for its answer, may take before failing
   * (and the API answering 503).
   */
  timeoutMs: number;
  /** How long an operation waits for a server to become reachable; `timeoutMs` unless given. */
  serverSelectionTimeoutMs?: number | undefined;
  /** Emit the driver's command events (the metrics time each command by them); off, they cost nothing. */
  monitorCommands?: boolean | undefined;
}

/**
 * A MongoClient with the service's timeouts. It connects on first use, and once connected finds a
 * server that went away again by itself. The service's own client is server/db/mongo-database.ts,
 * which also bounds each operation as a whole and recovers from a failed first connect.
 */
export function createMongoClient({
  uri,
  timeoutMs,
  serverSelectionTimeoutMs = timeoutMs,
  monitorCommands = false,
}: MongoClientOptions): MongoClient {
  return new MongoClient(uri, {
    appName: 'plant-store',
    serverSelectionTimeoutMS: serverSelectionTimeoutMs,
    connectTimeoutMS: timeoutMs,
    // A server that takes a command and never answers would otherwise hold the request for ever.
    socketTimeoutMS: timeoutMs,
    // No overload retries: their backoff (up to 10 s) outlasts MONGODB_TIMEOUT_MS, and a retry
    // that starts after an operation's deadline passed no longer heeds it. The client retries on 503.
    maxAdaptiveRetries: 0,
    monitorCommands,
  });
}
