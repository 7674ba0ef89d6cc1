import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';

/**
 * Parses JSON bodies like Fastify's own parser (secure-json-parse, refusing `__proto__` and
 * `constructor.prototype` keys), but answers with messages that tell the client what is wrong:
 * Fastify's says the same thing for a typo and for a prototype-poisoning attempt.
 */
export function registerJsonBodyParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body: string, done) => {
    if (body.trim() === '') {
      done(badRequest('the request body is empty: send a JSON object'));
      return;
    }
    try {
      done(null, secureJson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      done(
        badRequest(
          reason.includes('forbidden prototype property')
            ? 'the request body uses a forbidden key: __proto__ or constructor.prototype'
            : `the request body is not valid JSON: ${reason}`,
        ),
      );
    }
  });
}

function badRequest(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400 });
}
