// Keeps a Store in its --dbpath the way mongod keeps its data: every change is appended to a journal,
// and the journal is written and fsync'd before a write is answered (Journal.flush, called by each
// connection before it replies). On start the last checkpoint is loaded and the journal replayed; a
// checkpoint (the whole data, written aside and renamed into place) then starts a new, empty journal,
// at start, at a clean shutdown, and whenever the journal outgrows its limit (64 MB).
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { Int32 } from 'bson';
import type { Change, Store } from '../store.js';
import type { Doc } from '../values.js';
import { lockDbPath } from './dbpath-lock.js';
import { decodeRecords, encodeRecord } from './records.js';

const CHECKPOINT_FILE = 'emulator-checkpoint.bson';
const JOURNAL_FILE = /^emulator-journal\.(\d+)\.bson$/;
/** The journal's size past which a flush checkpoints: replay at the next start stays short. */
export const JOURNAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

const journalName = (generation: number) => `emulator-journal.${generation}.bson`;

/** The first record of a checkpoint: which journal continues it. */
interface CheckpointHeader {
  op: 'checkpoint';
  journal: number;
}

function applyChange(store: Store, change: Change): void {
  if (change.op === 'dropDatabase') {
    store.dropDatabase(change.db);
    return;
  }
  if (change.op === 'dropCollection') {
    store.dropCollection(change.db, change.coll);
    return;
  }
  const { collection } = store.ensureCollection(change.db, change.coll);
  if (change.op === 'insert') collection.insert(change.doc);
  else if (change.op === 'createIndex') collection.createIndex(change.spec);
  else if (change.op === 'dropIndex') collection.dropIndex(change.name);
  else if (change.op === 'replace' || change.op === 'remove') {
    const previous = collection.findById(change.op === 'replace' ? change.doc._id : change.id);
    if (!previous) throw new Error(`the journal ${change.op}s a document that is not there in ${change.db}.${change.coll}`);
    if (change.op === 'replace') collection.replace(previous, change.doc);
    else collection.remove(previous);
  }
}

/** The whole data as the changes that make it again: collections, their indexes, their documents in natural order. */
function* changesOf(store: Store): Generator<Change> {
  for (const db of store.databaseNames()) {
    for (const collection of store.collections(db)) {
      const coll = collection.name;
      yield { op: 'create', db, coll };
      for (const spec of collection.secondaryIndexSpecs()) yield { op: 'createIndex', db, coll, spec };
      for (const doc of collection.all()) yield { op: 'insert', db, coll, doc };
    }
  }
}

function syncFolder(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface Recovery {
  /** Changes replayed from the journal (0: the last run checkpointed at its shutdown). */
  replayed: number;
  /** Bytes of a record cut short at the journal's end, dropped (never acknowledged). */
  tornBytes: number;
}

export interface OpenOptions {
  /** How long to wait for a live holder of the dbpath's lock to stop. */
  lockWaitMs: number;
  checkpointBytes?: number;
}

/** The number of the journal now in use: it goes up by one at each checkpoint. */
export function journalGeneration(dbpath: string): number | undefined {
  const numbers = readdirSync(dbpath).flatMap((name) => {
    const match = JOURNAL_FILE.exec(name);
    return match ? [Number(match[1])] : [];
  });
  return numbers.length === 1 ? numbers[0] : undefined;
}

export class DurableStore {
  private pending: Buffer[] = [];
  private journalBytes = 0;

  private constructor(
    private readonly store: Store,
    private readonly dbpath: string,
    private generation: number,
    private journal: number,
    private readonly unlock: () => void,
    private readonly checkpointBytes: number,
  ) {
    store.onChange = (change) => {
      this.pending.push(encodeRecord(change));
    };
  }

  /** Locks the dbpath, loads what it holds into `store`, and journals the store's changes from then on. */
  static async open(
    store: Store,
    dbpath: string,
    { lockWaitMs, checkpointBytes = JOURNAL_CHECKPOINT_BYTES }: OpenOptions,
  ): Promise<{ durable: DurableStore; recovery: Recovery }> {
    if (!existsSync(dbpath))
      throw new Error(
        `NonExistentPath: Data directory ${dbpath} not found. Create the missing directory or specify another path using --dbpath`,
      );
    const unlock = await lockDbPath(dbpath, lockWaitMs);
    try {
      let generation = 0;
      const checkpointPath = join(dbpath, CHECKPOINT_FILE);
      if (existsSync(checkpointPath)) {
        const bytes = readFileSync(checkpointPath);
        const { docs, validBytes } = decodeRecords(bytes);
        const [header, ...changes] = docs;
        // Read back as an Int32, as every number is (BSON_READ_OPTIONS).
        const journal = header?.journal;
        if (validBytes !== bytes.length || header?.op !== 'checkpoint' || !(journal instanceof Int32)) {
          throw new Error(`${checkpointPath} is damaged: move it away to start from the journal alone`);
        }
        generation = journal.value;
        for (const change of changes as Change[]) applyChange(store, change);
      }
      const journalPath = join(dbpath, journalName(generation));
      const recovery: Recovery = { replayed: 0, tornBytes: 0 };
      if (existsSync(journalPath)) {
        const bytes = readFileSync(journalPath);
        const { docs, validBytes } = decodeRecords(bytes);
        for (const change of docs as Change[]) applyChange(store, change);
        recovery.replayed = docs.length;
        recovery.tornBytes = bytes.length - validBytes;
      }
      // Journals of generations before the checkpoint's: left by a crash between a checkpoint and their removal.
      for (const name of readdirSync(dbpath)) {
        const match = JOURNAL_FILE.exec(name);
        if (match && Number(match[1]) !== generation) unlinkSync(join(dbpath, name));
      }
      const journal = openSync(journalPath, 'a');
      const durable = new DurableStore(store, dbpath, generation, journal, unlock, checkpointBytes);
      if (recovery.replayed > 0 || recovery.tornBytes > 0) durable.checkpoint();
      return { durable, recovery };
    } catch (error) {
      unlock();
      throw error;
    }
  }

  /** Writes the changes made since the last flush to the journal and waits for the disk: call before answering. */
  flush(): void {
    if (this.pending.length === 0) return;
    const records = Buffer.concat(this.pending);
    this.pending = [];
    writeSync(this.journal, records);
    fdatasyncSync(this.journal);
    this.journalBytes += records.length;
    if (this.journalBytes >= this.checkpointBytes) this.checkpoint();
  }

  /** Writes the whole data as a new checkpoint followed by a new, empty journal, then drops the old journal. */
  checkpoint(): void {
    this.flush();
    const next = this.generation + 1;
    const nextJournal = openSync(join(this.dbpath, journalName(next)), 'w');
    fsyncSync(nextJournal);
    const temporary = join(this.dbpath, `${CHECKPOINT_FILE}.tmp`);
    const fd = openSync(temporary, 'w');
    try {
      const header: CheckpointHeader = { op: 'checkpoint', journal: next };
      writeSync(fd, encodeRecord(header as unknown as Doc));
      for (const change of changesOf(this.store)) writeSync(fd, encodeRecord(change));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, join(this.dbpath, CHECKPOINT_FILE));
    syncFolder(this.dbpath);
    closeSync(this.journal);
    unlinkSync(join(this.dbpath, journalName(this.generation)));
    this.journal = nextJournal;
    this.generation = next;
    this.journalBytes = 0;
  }

  /** A clean shutdown: everything checkpointed, the lock released. */
  close(): void {
    this.checkpoint();
    closeSync(this.journal);
    this.store.onChange = undefined;
    this.unlock();
  }
}
