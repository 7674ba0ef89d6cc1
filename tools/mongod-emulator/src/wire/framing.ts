// Splits a TCP byte stream into wire protocol messages using the 16-byte header's length field.
// Chunks are kept as a list and joined only when a whole message is available.

export const HEADER_SIZE = 16;
export const MAX_MESSAGE_SIZE = 48_000_000;

/** A malformed or hostile message: the connection that sent it gets closed. */
export class ProtocolError extends Error {}

export interface RawMessage {
  requestId: number;
  responseTo: number;
  opCode: number;
  /** The whole message, header included. */
  body: Buffer;
}

export class MessageSplitter {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Adds received bytes and returns every message now complete. Throws ProtocolError. */
  push(chunk: Buffer): RawMessage[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: RawMessage[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const length = this.peekLength();
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE) {
        throw new ProtocolError(`invalid message length ${length} (allowed ${HEADER_SIZE}..${MAX_MESSAGE_SIZE})`);
      }
      if (this.buffered < length) break;
      const body = this.take(length);
      messages.push({ requestId: body.readInt32LE(4), responseTo: body.readInt32LE(8), opCode: body.readInt32LE(12), body });
    }
    return messages;
  }

  private peekLength(): number {
    const first = this.chunks[0];
    if (first && first.length >= 4) return first.readInt32LE(0);
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined.readInt32LE(0);
  }

  private take(length: number): Buffer {
    const joined = this.chunks.length === 1 ? (this.chunks[0] ?? Buffer.alloc(0)) : Buffer.concat(this.chunks);
    const message = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return message;
  }
}
