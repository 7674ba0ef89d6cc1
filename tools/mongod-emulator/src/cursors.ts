// Open cursors: results are materialized when a query runs and handed out in batches by getMore.
// Batches follow mongod's defaults: 101 documents for the first batch unless batchSize says
// otherwise, everything left for a getMore without batchSize, and never much more than 16 MB.
import { calculateObjectSize, Long } from 'bson';
import { CommandError } from './errors.js';
import type { Doc } from './values.js';

const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const DEFAULT_FIRST_BATCH = 101;

interface OpenCursor {
  ns: string;
  docs: Doc[];
  position: number;
}

export interface CursorReply {
  batch: Doc[];
  id: Long;
}

export class CursorRegistry {
  private readonly open = new Map<bigint, OpenCursor>();
  // Ids start at a random point so that ids from a previous emulator run are not reused.
  private nextId = BigInt(Math.floor(Math.random() * 2 ** 40)) + 1n;

  private takeBatch(cursor: OpenCursor, batchSize: number | undefined): Doc[] {
    const limit = batchSize === undefined || batchSize <= 0 ? Number.POSITIVE_INFINITY : batchSize;
    const batch: Doc[] = [];
    let bytes = 0;
    while (cursor.position < cursor.docs.length && batch.length < limit) {
      const doc = cursor.docs[cursor.position];
      if (doc === undefined) break;
      bytes += calculateObjectSize(doc);
      if (batch.length > 0 && bytes > MAX_BATCH_BYTES) break;
      batch.push(doc);
      cursor.position += 1;
    }
    return batch;
  }

  /** Returns the first batch and registers a cursor when documents remain. */
  start(ns: string, docs: Doc[], batchSize: number | undefined, singleBatch: boolean): CursorReply {
    const cursor: OpenCursor = { ns, docs, position: 0 };
    const batch = this.takeBatch(cursor, batchSize ?? DEFAULT_FIRST_BATCH);
    if (singleBatch || cursor.position >= docs.length) return { batch, id: Long.ZERO };
    const id = this.nextId;
    this.nextId += 1n;
    this.open.set(id, cursor);
    return { batch, id: Long.fromBigInt(id) };
  }

  getMore(id: bigint, ns: string, batchSize: number | undefined): CursorReply {
    const cursor = this.open.get(id);
    if (!cursor) throw new CommandError('CursorNotFound', `cursor id ${id} not found`);
    if (cursor.ns !== ns) {
      throw new CommandError(
        'Unauthorized',
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    const batch = this.takeBatch(cursor, batchSize);
    if (cursor.position >= cursor.docs.length) {
      this.open.delete(id);
      return { batch, id: Long.ZERO };
    }
    return { batch, id: Long.fromBigInt(id) };
  }

  kill(id: bigint): boolean {
    return this.open.delete(id);
  }
}
