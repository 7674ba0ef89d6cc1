import type { CreatePlantExample } from '../../schemas/examples.js';

/** A further request to try out (see MORE_CREATE_PLANT_REQUESTS). */
export interface RequestExample {
  summary: string;
  description: string;
  body: unknown;
}

/** The parts of an OpenAPI operation that examples go into. */
export interface ExampleTarget {
  requestBody?: { content?: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

interface MediaType {
  examples?: Record<string, ExampleObject>;
}

interface ExampleObject {
  summary: string;
  description?: string;
  value: unknown;
}

/** Bodies longer than this are described in words rather than shown (the 413 example). */
const MAX_SHOWN_BODY_CHARS = 300;

/**
 * Puts each status's example on its response, with the request that produced it in words, and
 * each distinct, short JSON request body on the request body, where Swagger UI offers them in
 * a drop-down to try out. Requests that are not JSON or too large to read stay in the words.
 */
export function addExamples(operation: ExampleTarget, examples: Record<string, CreatePlantExample>, moreRequests: Record<string, RequestExample> = {}): void {
  const requestExamples: Record<string, ExampleObject> = {};
  const shownBodies = new Set<string>();
  for (const [status, example] of Object.entries(examples)) {
    const responseMedia = operation.responses[status]?.content?.['application/json'];
    if (!responseMedia) throw new Error(`POST /plants documents no JSON response ${status} for the example ${example.name}`);
    responseMedia.examples = { [example.name]: { summary: example.summary, description: describeRequest(example), value: example.response } };

    const body = JSON.stringify(example.request.body);
    if (example.request.contentType === 'application/json' && body.length <= MAX_SHOWN_BODY_CHARS && !shownBodies.has(body)) {
      shownBodies.add(body);
      requestExamples[example.name] = { summary: example.summary, value: example.request.body };
    }
  }
  for (const [name, { summary, description, body }] of Object.entries(moreRequests)) requestExamples[name] = { summary, description, value: body };
  const requestMedia = operation.requestBody?.content?.['application/json'];
  if (!requestMedia) throw new Error('POST /plants documents no JSON request body');
  requestMedia.examples = requestExamples;
}

function describeRequest({ request, given }: CreatePlantExample): string {
  const auth = {
    valid: 'with a valid bearer token',
    none: 'without an Authorization header',
    invalid: 'with a bearer token the service does not accept',
  }[request.token];
  const text = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const body = text.length <= MAX_SHOWN_BODY_CHARS ? `the body \`${text}\`` : `a body of ${Buffer.byteLength(text)} bytes`;
  const condition = given === undefined ? '' : `, when ${given}`;
  return `The answer to \`POST /plants\` ${auth}, \`Content-Type: ${request.contentType}\` and ${body}${condition}.`;
}
