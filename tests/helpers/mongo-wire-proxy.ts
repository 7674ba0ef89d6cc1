// A TCP proxy between the service and MongoDB that reads the wire protocol: it records every
// command the service really sends, can spoil the answer to an insert (or another write) the way a failing
// deployment would, and can stop all traffic (a black hole), so the tests see what the service does.
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { deserialize, serialize, type Document } from 'bson';

const OP_MSG = 2013;
const HEADER_BYTES = 16;
const CHECKSUM_PRESENT = 1;

/**
 * What becomes of the server's answer to an insert: passed on, turned into a write concern error,
 * lost with the connection, or never delivered while the connection stays open (a hung server);
 * or the command itself never reaches the server (`lostCommand`), so nothing is written or answered.
 */
export type InsertFault = 'none' | 'writeConcernError' | 'dropConnection' | 'noAnswer' | 'lostCommand';

export interface MongoWireProxy {
  uri(dbName: string): string;
  /** Every OP_MSG command body sent by clients, in order. */
  commands: Document[];
  fault: InsertFault;
  /** Which commands `fault` spoils: inserts unless set. */
  faultOn: (command: Document) => boolean;
  /**
   * On: connections are still accepted, but no byte goes either way, as with a hung server or a
   * network that drops everything. Off: what was held back flows again.
   */
  blackHole(on: boolean): void;
  close(): Promise<void>;
}

export async function startMongoWireProxy(targetUri: string): Promise<MongoWireProxy> {
  const target = new URL(targetUri.replace(/^mongodb:/, 'http:'));
  const sockets = new Set<Socket>();
  let holding = false;
  const proxy: MongoWireProxy = {
    uri: (dbName) => `mongodb://127.0.0.1:${(server.address() as AddressInfo).port}/${dbName}`,
    commands: [],
    fault: 'none',
    faultOn: isCommand('insert'),
    blackHole: (on) => {
      holding = on;
      for (const socket of sockets) {
        if (on) socket.pause();
        else socket.resume();
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      if (holding) socket.pause();
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const faultableRequestIds = new Set<number>();
    client.on(
      'data',
      messageReader((message) => {
        const body = opMsgBody(message);
        if (body) {
          proxy.commands.push(body);
          if (proxy.faultOn(body)) {
            if (proxy.fault === 'lostCommand') return;
            faultableRequestIds.add(message.readInt32LE(4));
          }
        }
        upstream.write(message);
      }),
    );
    upstream.on(
      'data',
      messageReader((message) => {
        const respondingTo = message.readInt32LE(8);
        if (!faultableRequestIds.delete(respondingTo) || proxy.fault === 'none') {
          client.write(message);
        } else if (proxy.fault === 'dropConnection') {
          client.destroy();
        } else if (proxy.fault === 'noAnswer') {
          // Swallowed: the client waits on an open connection for an answer that never comes.
        } else {
          const body = opMsgBody(message) ?? {};
          client.write(
            opMsg(message, {
              ...body,
              writeConcernError: { code: 64, codeName: 'WriteConcernFailed', errmsg: 'waiting for replication timed out' },
            }),
          );
        }
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return proxy;
}

/** Matches the commands named `name`: a command's name is its first field (a findAndModify also has an `update` field). */
export function isCommand(name: string): (command: Document) => boolean {
  return (command) => Object.keys(command)[0] === name;
}

/** Splits a byte stream into whole wire messages (each starts with its int32 length). */
function messageReader(onMessage: (message: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
      const length = pending.readInt32LE(0);
      onMessage(pending.subarray(0, length));
      pending = pending.subarray(length);
    }
  };
}

/** The body (section kind 0) of an OP_MSG, types kept as sent; undefined for other opcodes. */
function opMsgBody(message: Buffer): Document | undefined {
  if (message.readInt32LE(12) !== OP_MSG || message[HEADER_BYTES + 4] !== 0) return undefined;
  const start = HEADER_BYTES + 5;
  return deserialize(message.subarray(start, start + message.readInt32LE(start)), { promoteValues: false });
}

/** An OP_MSG with the same ids as `original` and `body` as its only section. */
function opMsg(original: Buffer, body: Document): Buffer {
  const bytes = serialize(body);
  const header = Buffer.alloc(HEADER_BYTES + 5);
  header.writeInt32LE(header.length + bytes.length, 0);
  header.writeInt32LE(original.readInt32LE(4), 4);
  header.writeInt32LE(original.readInt32LE(8), 8);
  header.writeInt32LE(OP_MSG, 12);
  header.writeUInt32LE(original.readUInt32LE(HEADER_BYTES) & ~CHECKSUM_PRESENT, HEADER_BYTES);
  header.writeUInt8(0, HEADER_BYTES + 4);
  return Buffer.concat([header, bytes]);
}
