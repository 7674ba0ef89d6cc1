// Decoding of the request opcodes the driver uses (OP_MSG, and OP_QUERY for the legacy first
// hello), and encoding of replies (OP_MSG, or OP_REPLY to an OP_QUERY).
import { deserialize, serialize } from 'bson';
import { BSON_READ_OPTIONS, type Doc } from '../values.js';
import { HEADER_SIZE, ProtocolError, type RawMessage } from './framing.js';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;
// Bits 0-15 are "required": a receiver must reject ones it does not know.
const KNOWN_REQUIRED_FLAGS = CHECKSUM_PRESENT | MORE_TO_COME;

export interface Request {
  requestId: number;
  opCode: typeof OP_MSG | typeof OP_QUERY;
  db: string;
  command: Doc;
  /** OP_MSG moreToCome: the client expects no reply. */
  noReply: boolean;
}

function readDocument(buffer: Buffer, offset: number, end: number): { doc: Doc; next: number } {
  if (offset + 5 > end) throw new ProtocolError('truncated BSON document');
  const size = buffer.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new ProtocolError(`invalid BSON document size ${size}`);
  try {
    const doc = deserialize(buffer.subarray(offset, offset + size), BSON_READ_OPTIONS);
    return { doc, next: offset + size };
  } catch (error) {
    throw new ProtocolError(`invalid BSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function readCString(buffer: Buffer, offset: number, end: number): { value: string; next: number } {
  const zero = buffer.indexOf(0, offset);
  if (zero < 0 || zero >= end) throw new ProtocolError('unterminated C string');
  return { value: buffer.toString('utf8', offset, zero), next: zero + 1 };
}

function decodeOpMsg(message: RawMessage): Request {
  const { body } = message;
  const flags = body.readUInt32LE(HEADER_SIZE);
  if ((flags & 0xffff & ~KNOWN_REQUIRED_FLAGS) !== 0) throw new ProtocolError(`unknown required OP_MSG flag bits ${flags}`);
  const end = body.length - ((flags & CHECKSUM_PRESENT) !== 0 ? 4 : 0);
  let offset = HEADER_SIZE + 4;
  let command: Doc | undefined;
  const sequences: [string, Doc[]][] = [];
  while (offset < end) {
    const kind = body.readUInt8(offset);
    offset += 1;
    if (kind === 0) {
      if (command) throw new ProtocolError('OP_MSG with more than one body section');
      const { doc, next } = readDocument(body, offset, end);
      command = doc;
      offset = next;
    } else if (kind === 1) {
      if (offset + 4 > end) throw new ProtocolError('truncated document sequence');
      const sectionEnd = offset + body.readInt32LE(offset);
      if (sectionEnd > end || sectionEnd < offset + 5) throw new ProtocolError('invalid document sequence size');
      const { value: identifier, next } = readCString(body, offset + 4, sectionEnd);
      const docs: Doc[] = [];
      let cursor = next;
      while (cursor < sectionEnd) {
        const read = readDocument(body, cursor, sectionEnd);
        docs.push(read.doc);
        cursor = read.next;
      }
      sequences.push([identifier, docs]);
      offset = sectionEnd;
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!command) throw new ProtocolError('OP_MSG without a body section');
  // Document sequences (e.g. `documents` of an insert) become array fields of the command.
  for (const [identifier, docs] of sequences) command[identifier] = docs;
  const db = command.$db;
  if (typeof db !== 'string') throw new ProtocolError('OP_MSG command without $db');
  return { requestId: message.requestId, opCode: OP_MSG, db, command, noReply: (flags & MORE_TO_COME) !== 0 };
}

function decodeOpQuery(message: RawMessage): Request {
  const { body } = message;
  const end = body.length;
  const { value: namespace, next } = readCString(body, HEADER_SIZE + 4, end);
  if (next + 8 > end) throw new ProtocolError('truncated OP_QUERY');
  const { doc } = readDocument(body, next + 8, end);
  if (!namespace.endsWith('.$cmd')) throw new ProtocolError(`OP_QUERY is only supported for commands, got ${namespace}`);
  // Legacy clients may wrap the command as { $query: {...}, $readPreference: ... }.
  const command = typeof doc.$query === 'object' && doc.$query !== null ? (doc.$query as Doc) : doc;
  return { requestId: message.requestId, opCode: OP_QUERY, db: namespace.slice(0, -'.$cmd'.length), command, noReply: false };
}

export function decodeRequest(message: RawMessage): Request {
  if (message.opCode === OP_MSG) {
    if (message.body.length < HEADER_SIZE + 5) throw new ProtocolError('OP_MSG too short');
    return decodeOpMsg(message);
  }
  if (message.opCode === OP_QUERY) return decodeOpQuery(message);
  throw new ProtocolError(`unsupported opcode ${message.opCode}`);
}

let nextResponseId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(HEADER_SIZE);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(nextResponseId, 4);
  nextResponseId = (nextResponseId % 0x7fffffff) + 1;
  buffer.writeInt32LE(responseTo, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

/** Encodes a reply in the same protocol the request used. */
export function encodeReply(request: Pick<Request, 'requestId' | 'opCode'>, reply: Doc): Buffer {
  const bson = serialize(reply);
  if (request.opCode === OP_QUERY) {
    const prefix = Buffer.alloc(20);
    // responseFlags 0, cursorID 0, startingFrom 0, numberReturned 1
    prefix.writeInt32LE(1, 16);
    const length = HEADER_SIZE + prefix.length + bson.length;
    return Buffer.concat([header(length, request.requestId, OP_REPLY), prefix, bson]);
  }
  const flagsAndKind = Buffer.alloc(5);
  const length = HEADER_SIZE + flagsAndKind.length + bson.length;
  return Buffer.concat([header(length, request.requestId, OP_MSG), flagsAndKind, bson]);
}
