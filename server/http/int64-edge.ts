import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { int64Json, reservedTextError, type JsonParser } from '../../schemas/int64-json.js';
import { JsonTextError } from '../../schemas/json-text.js';
import { httpError } from '../errors/http-error.js';
import { readBodyText, type BodyStream } from './body-text.js';

// The service's one door to exact int64 JSON at the HTTP edge: the body reader, the writer of
// answers, and what the stock adapters need to carry bigints through their own JSON steps.

/**
 * Parses JSON bodies like Fastify's own parser (secure-json-parse, refusing `__proto__` and
 * `constructor.prototype` keys), but exact for integers beyond 2^53 (they arrive as bigints,
 * exact int64 JSON), bounded in depth, and with messages that tell
 * the client what is wrong: Fastify's says the same thing for a typo and for a
 * prototype-poisoning attempt. Every failure is a 400, answered by the app's one error handler.
 */
export function registerJsonBodyParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  addJsonBodyParser(app, 'application/json');
}

/** The same JSON reader for another media type whose body is JSON, such as `application/merge-patch+json`. */
export function addJsonBodyParser(app: FastifyInstance, mediaType: string) {
  app.addContentTypeParser(mediaType, (request, payload: BodyStream, done) => {
    readBodyText(request, payload, (error, body = '', byteLength = 0) => {
      if (error) done(error);
      // Clients often send Content-Type on every request: an empty DELETE is no body, not an empty one.
      else if (byteLength === 0 && request.method === 'DELETE') done(null, undefined);
      else done(...parseJsonBody(body));
    });
  });
}

/** The body parsed, or the 400 that says what is wrong with it, as `done`'s arguments. */
function parseJsonBody(body: string): [Error | null, unknown?] {
  try {
    return [null, int64Json.parse(body, parseSecurely)];
  } catch (error) {
    return [httpError(400, describeParseFailure(body, error))];
  }
}

const parseSecurely: JsonParser = (text, reviver) => secureJson.parse(text, reviver, { protoAction: 'error', constructorAction: 'error' });

/** What was wrong with a body that did not parse, worked out only when one fails. */
function describeParseFailure(body: string, error: unknown): string {
  if (error instanceof JsonTextError) return error.messageFor('the request body');
  if (body.trim() === '') return 'the request body is empty: send a JSON object';
  const reason = error instanceof Error ? error.message : String(error);
  return reason.includes('forbidden prototype property')
    ? 'the request body uses a forbidden key: __proto__ or constructor.prototype'
    : `the request body is not valid JSON: ${reason}`;
}

/** How a refusal names the text it refuses. */
const SUBJECTS = { body: 'the request body', query: 'the input parameter' } as const;

/**
 * A client's JSON input for tRPC (a body, or a query's `input` parameter) marked for tRPC's own
 * JSON.parse. Throws a 400 in the client's words when it cannot be: text
 * nested too deeply or holding a reserved string, or text that had to be rewritten and does not
 * parse (the parse error of the client's own text, so no message ever quotes a marker). On /trpc
 * the 400 answers in tRPC's envelope, as BAD_REQUEST, whichever handler reads the input.
 */
export function markTrpcInput(text: string, from: keyof typeof SUBJECTS): string {
  try {
    return int64Json.markValidText(text);
  } catch (error) {
    throw httpError(
      400,
      error instanceof JsonTextError ? error.messageFor(SUBJECTS[from]) : error instanceof Error ? error.message : String(error),
    );
  }
}

/**
 * An answer's int64 markers written back as exact JSON numbers, for every
 * route: REST outputs, tRPC answers and the OpenAPI document's bounds. Only where answers can
 * hold markers (a runtime without `JSON.rawJSON`); there an answer without markers costs one
 * substring test, and one that is not text is left as it is. Elsewhere, the payload as it is.
 */
export const exactIntegers: (payload: unknown) => unknown = int64Json.writesMarkers ? unmarkPayload : (payload) => payload;

function unmarkPayload(payload: unknown): unknown {
  // unmarkText answers the text itself when it holds no marker.
  return typeof payload === 'string' ? int64Json.unmarkText(payload) : payload;
}

/** A value as JSON.stringify must see it to write its bigints as exact numbers (an output, the OpenAPI document). */
export const writableJson: (value: unknown) => unknown = int64Json.writable;

/** JSON text with bigints written as exact numbers. */
export const exactJsonText: (value: unknown) => string = int64Json.stringify;

/** A JSON text's int64 markers written back as exact numbers (tRPC's stock handler's answers). */
export const unmarkJsonText: (text: string) => string = int64Json.unmarkText;

/**
 * The stock REST plugin stringifies the body itself, so its bigints go to it as markers
 * (`markBody`) that its caller revives (`reviveMarked`). A query parameter holding the marker
 * prefix is refused, so no client text is ever read as a number; it needs a NUL, which a URL can
 * only carry as `%00`: other requests pay one substring test.
 */
export const markBody: (body: unknown) => unknown = int64Json.mark;
export const reviveMarked: (input: unknown) => unknown = int64Json.revive;

export function forgedMarkerInQuery(request: FastifyRequest): Error | undefined {
  if (!request.url.includes('%00')) return undefined;
  const values = Object.values(request.query as Record<string, unknown>).flat();
  const forged = values.some((value) => typeof value === 'string' && int64Json.holdsMarkerPrefix(value));
  return forged ? httpError(400, reservedTextError().messageFor('the query')) : undefined;
}
