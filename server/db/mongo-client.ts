import { MongoClient, MongoDriverError } from 'mongodb';
import { ConfigError } from '../env/config-error.js';

export interface MongoClientOptions {
  uri: string;
  /** For connecting and for each answer; past it the API answers 503. */
  timeoutMs: number;
  serverSelectionTimeoutMs?: number | undefined;
  /** The metrics time each command by the driver's events; off, they cost nothing. */
  monitorCommands?: boolean | undefined;
}

/** The driver never recovers from a failed first connect; `MongoDatabase` does, and bounds each operation as a whole. */
export function createMongoClient({
  uri,
  timeoutMs,
  serverSelectionTimeoutMs = timeoutMs,
  monitorCommands = false,
}: MongoClientOptions): MongoClient {
  try {
    return new MongoClient(uri, {
      appName: 'plant-store',
      serverSelectionTimeoutMS: serverSelectionTimeoutMs,
      connectTimeoutMS: timeoutMs,
      // A server that takes a command and never answers would otherwise hold the request for ever.
      socketTimeoutMS: timeoutMs,
      // No overload retries: their backoff outlasts MONGODB_TIMEOUT_MS and ignores the deadline; clients retry on 503.
      maxAdaptiveRetries: 0,
      monitorCommands,
    });
  } catch (error) {
    // The driver reads the URI's options only here (config validation must not load it before tracing patches it).
    if (error instanceof MongoDriverError) throw ConfigError.of(`MONGODB_URI: ${error.message}`, { cause: error });
    throw error;
  }
}
