import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';
import { httpError } from '../errors/http-error.js';
import { encodedBodyRefusal } from './request-refusals.js';

export type BodyStream = Readable & { receivedEncodedLength?: number };

type Done = (error: Error | null, text?: string, byteLength?: number) => void;

const BYTE_ORDER_MARK = 0xfeff;

/** Strictly UTF-8 (RFC 8259): lenient decoding would store U+FFFD the client never sent. Not `parseAs`: its copies cost more. */
export function readBodyText(request: FastifyRequest, payload: BodyStream, done: Done): void {
  const encoded = encodedBodyRefusal(request.headers);
  if (encoded) {
    done(encoded);
    return;
  }
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
