import { MongoClient } from 'mongodb';

export interface MongoClientOptions {
  uri: string;
  /**
   * How long an operation waits for a reachable server, and then for its answer, before failing
   * (and the API answering 503).
   */
  timeoutMs: number;
}

/**
 * One MongoClient for the app. It connects on first use and reconnects by itself after an
 * outage, so the service starts and stays up while the database is away (/readyz tells).
 */
export function createMongoClient({ uri, timeoutMs }: MongoClientOptions): MongoClient {
  return new MongoClient(uri, {
    appName: 'plant-store',
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    // A server that takes a command and never answers would otherwise hold the request for ever.
    socketTimeoutMS: timeoutMs,
  });
}
