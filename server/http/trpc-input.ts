import { int64Json } from '../../schemas/int64-json.js';
import { JsonTextError } from '../../schemas/json-text.js';
import { httpError } from '../errors/http-error.js';

/** How a refusal names the text it refuses. */
const SUBJECTS = { body: 'the request body', query: 'the input parameter' } as const;

/**
 * A client's JSON input for tRPC (a body, or a query's `input` parameter) marked for tRPC's own
 * JSON.parse (schemas/int64-json.ts). Throws a 400 in the client's words when it cannot be: text
 * nested too deeply or holding a reserved string, or text that had to be rewritten and does not
 * parse (the parse error of the client's own text, so no message ever quotes a marker). On /trpc
 * the 400 answers in tRPC's envelope, as BAD_REQUEST, whichever handler reads the input.
 */
export function markTrpcInput(text: string, from: keyof typeof SUBJECTS): string {
  try {
    return int64Json.markValidText(text);
  } catch (error) {
    throw httpError(400, error instanceof JsonTextError ? error.messageFor(SUBJECTS[from]) : error instanceof Error ? error.message : String(error));
  }
}
