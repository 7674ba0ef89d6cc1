import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { int64Json, reservedTextError, type JsonParser } from '../../schemas/int64-json.js';
import { JsonTextError } from '../../schemas/json-text.js';
import { JSON_SUBJECTS, notJsonMessage } from '../../routers/error-messages.js';
import { httpError } from '../errors/http-error.js';
import { readBodyText, type BodyStream } from './body-text.js';

/**
 * Fastify's JSON reader and writer, exact beyond 2^53: the parser also bounds depth and tells a typo from prototype
 * poisoning; the reply serializer writes every answer given as a value.
 */
export function registerJsonEdge(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  addJsonBodyParser(app, 'application/json');
  app.setReplySerializer(exactJsonText);
}

/** `refusal`: what refuses the body before it is read (a media type the request's operation does not take). */
export function addJsonBodyParser(app: FastifyInstance, mediaType: string, refusal?: (request: FastifyRequest) => Error | undefined) {
  app.addContentTypeParser(mediaType, (request, payload: BodyStream, done) => {
    const refused = refusal?.(request);
    if (refused) {
      done(refused);
      return;
    }
    readBodyText(request, payload, (error, body = '', byteLength = 0) => {
      if (error) done(error);
      // Clients often send Content-Type on every request: an empty DELETE is no body, not an empty one.
      else if (byteLength === 0 && request.method === 'DELETE') done(null, undefined);
      else done(...parseJsonBody(body));
    });
  });
}

function parseJsonBody(body: string): [Error | null, unknown?] {
  try {
    return [null, int64Json.parse(body, parseSecurely)];
  } catch (error) {
    return [httpError(400, describeParseFailure(body, error))];
  }
}

const parseSecurely: JsonParser = (text, reviver) => secureJson.parse(text, reviver, { protoAction: 'error', constructorAction: 'error' });

function describeParseFailure(body: string, error: unknown): string {
  if (error instanceof JsonTextError) return error.messageFor(JSON_SUBJECTS.body);
  if (body.trim() === '') return 'the request body is empty: send a JSON object';
  return error instanceof Error && error.message.includes('forbidden prototype property')
    ? 'the request body uses a forbidden key: __proto__ or constructor.prototype'
    : notJsonMessage(JSON_SUBJECTS.body, error);
}

/** Input marked for tRPC's own JSON.parse; its 400 quotes the client's own text, never a marker. */
export function markTrpcInput(text: string, from: keyof typeof JSON_SUBJECTS): string {
  try {
    return int64Json.markValidText(text);
  } catch (error) {
    const subject = JSON_SUBJECTS[from];
    throw httpError(400, error instanceof JsonTextError ? error.messageFor(subject) : notJsonMessage(subject, error));
  }
}

export const writableJson: (value: unknown) => unknown = int64Json.writable;

export const exactJsonText: (value: unknown) => string = int64Json.stringify;

/**
 * For a context whose adapters write their own JSON text (trpc-to-openapi): without `JSON.rawJSON` their outputs
 * were made writable as markers, which are written back as numbers here; with it, there is nothing to do.
 */
export function writeBackAdapterMarkers(context: FastifyInstance): void {
  if (!int64Json.writesMarkers) return;
  context.addHook('onSend', (_request, _reply, payload, done) => {
    done(null, typeof payload === 'string' ? int64Json.unmarkText(payload) : payload);
  });
}

export const unmarkJsonText: (text: string) => string = int64Json.unmarkText;

/** The stock REST plugin stringifies bodies itself, so bigints go as markers; forging one needs `%00`, so a substring test guards. */
export const markBody: (body: unknown) => unknown = int64Json.mark;
export const reviveMarked: (input: unknown) => unknown = int64Json.revive;

export function forgedMarkerInQuery(request: FastifyRequest): Error | undefined {
  if (!request.url.includes('%00')) return undefined;
  const values = Object.values(request.query as Record<string, unknown>).flat();
  const forged = values.some((value) => typeof value === 'string' && int64Json.holdsMarkerPrefix(value));
  return forged ? httpError(400, reservedTextError().messageFor('the query')) : undefined;
}
