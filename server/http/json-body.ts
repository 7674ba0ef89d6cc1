import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { int64Json, type JsonParser } from '../../schemas/int64-json.js';
import { JsonTextError } from '../../schemas/json-text.js';
import { httpError } from '../errors/http-error.js';
import { readBodyText, type BodyStream } from './body-text.js';

/**
 * Parses JSON bodies like Fastify's own parser (secure-json-parse, refusing `__proto__` and
 * `constructor.prototype` keys), but exact for integers beyond 2^53 (they arrive as bigints,
 * schemas/int64-json.ts), bounded in depth (schemas/json-text.ts), and with messages that tell
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
