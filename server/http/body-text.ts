import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';
import { httpError } from '../errors/http-error.js';

/** The body stream Fastify hands a content-type parser; a preParsing stream may count its encoded bytes. */
export type BodyStream = Readable & { receivedEncodedLength?: number };

/** The body's text (a leading byte-order mark dropped) and how many bytes it came in, or the error. */
type Done = (error: Error | null, text?: string, byteLength?: number) => void;

const BYTE_ORDER_MARK = 0xfeff;

/**
 * Reads a request body as text for a content-type parser, as Fastify's own reader (`parseAs`)
 * does: the route's body limit, checked against Content-Length first and then as bytes arrive
 * (413), a length that disagrees with Content-Length refused (400), a stream error a 400. The
 * text must be UTF-8, which JSON must be (RFC 8259): decoding leniently would turn invalid bytes
 * into U+FFFD and store a name the client never sent, so invalid bytes are a 400 of their own. A
 * leading byte-order mark is dropped.
 *
 * Why not `parseAs: 'buffer'`: Fastify then copies every body into a new Buffer, and those small
 * copies cost more than the rest of the reading. A body that arrives in one
 * chunk of exactly its Content-Length is decoded in place, before any other read can happen;
 * any other chunk is copied as it arrives, so no chunk is held across socket reads.
 */
export function readBodyText(request: FastifyRequest, payload: BodyStream, done: Done): void {
  const limit = request.routeOptions.bodyLimit;
  const contentLength = Number(request.headers['content-length']);
  if (contentLength > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;

  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    if (received > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      stop();
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    const whole = chunks.length === 0 && bytes.length === contentLength;
    chunks.push(whole ? bytes : Buffer.from(bytes));
  }
  function onEnd(error?: Error & { statusCode?: number }) {
    stop();
    if (error != null) {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      done(error);
      return;
    }
    // A preParsing stream's count of encoded bytes, when it keeps one, is what Content-Length measured.
    const encoded = payload.receivedEncodedLength;
    if (!Number.isNaN(contentLength) && (encoded !== undefined && encoded > 0 ? encoded : received) !== contentLength) {
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
    if (!isUtf8(bytes)) {
      done(httpError(400, 'the request body is not valid UTF-8'));
      return;
    }
    // A leading byte-order mark is dropped, as a UTF-8 TextDecoder (and so a fetch Request's text()) drops it.
    const text = bytes.toString('utf8');
    done(null, text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text, bytes.length);
  }

  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}
