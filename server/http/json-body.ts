import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { int64Json } from '../../schemas/int64-json.js';
import { httpError } from '../errors/http-error.js';
import { readBodyText, type BodyStream } from './body-text.js';

/**
 * Parses JSON bodies like Fastify's own parser (secure-json-parse, refusing `__proto__` and
 * `constructor.prototype` keys), but exact for integers beyond 2^53 (they arrive as bigints,
 * schemas/int64-json.ts), and with messages that tell the client what is wrong: Fastify's says
 * the same thing for a typo and for a prototype-poisoning attempt.
 */
export function registerJsonBodyParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload: BodyStream, done) => {
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
  const marked = int64Json.markText(body);
  let parsed: unknown;
  try {
    parsed = parseSecurely(marked);
  } catch (error) {
    // The client's own text, so that positions in the message are where the client put them.
    return [httpError(400, describeParseFailure(body, marked === body ? error : parseFailure(body)))];
  }
  return [null, marked === body ? parsed : int64Json.revive(parsed)];
}

function parseSecurely(text: string): unknown {
  return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
}

function parseFailure(text: string): unknown {
  try {
    parseSecurely(text);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** What was wrong with a body that did not parse, worked out only when one fails. */
function describeParseFailure(body: string, error: unknown): string {
  if (body.trim() === '') return 'the request body is empty: send a JSON object';
  const reason = error instanceof Error ? error.message : String(error);
  return reason.includes('forbidden prototype property')
    ? 'the request body uses a forbidden key: __proto__ or constructor.prototype'
    : `the request body is not valid JSON: ${reason}`;
}
