// The on-disk record: a CRC-32 of the BSON document, then the document (which starts with its own
// length). A record cut short by a crash, or whose checksum fails, ends what is read: it was never
// acknowledged, since a write is answered only once its record is on disk.
import { crc32 } from 'node:zlib';
import { deserialize, serialize } from 'bson';
import { BSON_READ_OPTIONS, type Doc } from '../values.js';

const CRC_BYTES = 4;
const MIN_BSON_BYTES = 5;

export function encodeRecord(doc: Doc): Buffer {
  const bson = serialize(doc);
  const record = Buffer.allocUnsafe(CRC_BYTES + bson.length);
  record.writeUInt32LE(crc32(bson), 0);
  record.set(bson, CRC_BYTES);
  return record;
}

export interface ReadRecords {
  docs: Doc[];
  /** Where the whole records end: anything after is a torn or damaged tail. */
  validBytes: number;
}

export function decodeRecords(buffer: Buffer): ReadRecords {
  const docs: Doc[] = [];
  let offset = 0;
  while (buffer.length - offset >= CRC_BYTES + MIN_BSON_BYTES) {
    const size = buffer.readInt32LE(offset + CRC_BYTES);
    const end = offset + CRC_BYTES + size;
    if (size < MIN_BSON_BYTES || end > buffer.length) break;
    const bson = buffer.subarray(offset + CRC_BYTES, end);
    if (crc32(bson) !== buffer.readUInt32LE(offset)) break;
    docs.push(deserialize(bson, BSON_READ_OPTIONS));
    offset = end;
  }
  return { docs, validBytes: offset };
}
