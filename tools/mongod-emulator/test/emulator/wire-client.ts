// A minimal raw wire-protocol client, to send exactly the bytes a test wants (including broken ones).
import { connect, type Socket } from 'node:net';
import { deserialize, serialize, type Document } from 'bson';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;
export const MORE_TO_COME = 2;

export interface Reply {
  responseTo: number;
  opCode: number;
  doc: Document;
}

function header(length: number, requestId: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(16);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId, 4);
  buffer.writeInt32LE(0, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

/** Builds a message with a correct header around an arbitrary body. */
export function frame(opCode: number, requestId: number, body: Buffer): Buffer {
  return Buffer.concat([header(16 + body.length, requestId, opCode), body]);
}

export function opMsg(
  requestId: number,
  command: Document,
  options: { flags?: number; sequences?: Record<string, Document[]> } = {},
): Buffer {
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE(options.flags ?? 0, 0);
  const sections: Buffer[] = [Buffer.from([0]), Buffer.from(serialize(command))];
  for (const [identifier, docs] of Object.entries(options.sequences ?? {})) {
    const payload = Buffer.concat([Buffer.from(`${identifier}\0`, 'utf8'), ...docs.map((doc) => serialize(doc))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + payload.length, 0);
    sections.push(Buffer.from([1]), size, payload);
  }
  return frame(OP_MSG, requestId, Buffer.concat([flags, ...sections]));
}

export function opQuery(requestId: number, namespace: string, command: Document): Buffer {
  const skipAndReturn = Buffer.alloc(8);
  skipAndReturn.writeInt32LE(-1, 4);
  return frame(
    OP_QUERY,
    requestId,
    Buffer.concat([Buffer.alloc(4), Buffer.from(`${namespace}\0`, 'utf8'), skipAndReturn, serialize(command)]),
  );
}

export class WireClient {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void)[] = [];
  closed = false;
  readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1' }, () => {
        resolve(new WireClient(socket));
      });
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Resolves with the next reply, or undefined when the server closes the connection first. */
  async nextReply(timeoutMs = 2000): Promise<Reply | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.buffered.length >= 4) {
        const length = this.buffered.readInt32LE(0);
        if (this.buffered.length >= length) {
          const message = this.buffered.subarray(0, length);
          this.buffered = this.buffered.subarray(length);
          const opCode = message.readInt32LE(12);
          const docOffset = opCode === OP_REPLY ? 36 : 21;
          return { responseTo: message.readInt32LE(8), opCode, doc: deserialize(message.subarray(docOffset)) };
        }
      }
      if (this.closed) return undefined;
      if (Date.now() > deadline) throw new Error('no reply in time');
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Resolves true once the server has closed the connection. */
  async closedByServer(timeoutMs = 2000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}
