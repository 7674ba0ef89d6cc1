import type { ExampleRequest, HttpLayerExample, OperationExample, RequestExample } from '../../schemas/examples.js';
import { exactJsonText } from '../http/int64-edge.js';
import type { OpenApiOperation, OpenApiResponse } from './operations.js';
import { header, RESPONSE_HEADERS, type ResponseHeaderName } from './response-headers.js';

/** Bodies longer than this are described in words rather than shown (the 413 example). */
const MAX_SHOWN_BODY_CHARS = 300;

interface ExampleObject {
  summary: string;
  description?: string;
  value: unknown;
}

/** Short request bodies also go on the request body, where Swagger UI offers them to try, except a 400's, a 415's or a token's. */
export function addExamples(
  operation: OpenApiOperation,
  examples: Record<string, OperationExample>,
  moreRequests: Record<string, RequestExample> = {},
): void {
  // By the request's media type: a merge patch's examples go with its media type.
  const requestExamples: Record<string, Record<string, ExampleObject>> = {};
  const shownBodies = new Set<string>();
  for (const [status, example] of Object.entries(examples)) {
    const response = responseOf(operation, status, example.name);
    const words = describeRequest(example);
    if (example.response === undefined) response.description = `${response.description}. ${words}`;
    else setExample(response, example.name, { summary: example.summary, description: words, value: example.response });
    // A header only an example shows is one not every such answer carries (`Link` on the last page).
    for (const name of Object.keys(example.headers ?? {})) {
      const documented = responseHeaderName(name);
      response.headers = { ...response.headers, [documented]: response.headers?.[documented] ?? header(documented, false) };
    }

    const body = example.request.body === undefined ? undefined : exactJsonText(example.request.body);
    const { contentType } = example.request;
    // A 400's or 415's body is refused on purpose: its response shows it in words, and a request example must be one to
    // send. An example about the token (401, 403) cannot be tried from its body: the page sends the token it was given.
    if (
      status !== '400' &&
      status !== '415' &&
      example.request.token === 'valid' &&
      contentType !== undefined &&
      contentType !== 'text/plain' &&
      body !== undefined &&
      body.length <= MAX_SHOWN_BODY_CHARS &&
      !shownBodies.has(body)
    ) {
      shownBodies.add(body);
      (requestExamples[contentType] ??= {})[example.name] = { summary: example.summary, value: example.request.body };
    }
  }
  for (const [name, { summary, description, body }] of Object.entries(moreRequests))
    (requestExamples['application/json'] ??= {})[name] = { summary, description, value: body };
  for (const [mediaType, named] of Object.entries(requestExamples)) {
    const requestMedia = operation.requestBody?.content?.[mediaType];
    if (!requestMedia) throw new Error(`examples with ${mediaType} bodies for an operation that takes none`);
    requestMedia.examples = named;
  }
}

/** The same answers of the HTTP layer on every operation. */
export function addHttpLayerExamples(operation: OpenApiOperation, examples: Record<string, HttpLayerExample>): void {
  for (const [status, example] of Object.entries(examples)) {
    setExample(responseOf(operation, status, example.name), example.name, {
      summary: example.summary,
      description: `The answer to any request when ${example.condition}.`,
      value: example.response,
    });
  }
}

function responseOf(operation: OpenApiOperation, status: string, exampleName: string): OpenApiResponse {
  const response = operation.responses[status];
  if (!response)
    throw new Error(`${operation.operationId ?? 'an operation'} documents no response ${status} for the example ${exampleName}`);
  return response;
}

function setExample(response: OpenApiResponse, name: string, example: ExampleObject): void {
  const media = response.content?.['application/json'];
  if (!media) throw new Error(`the response for the example ${name} has no JSON body`);
  media.examples = { [name]: example };
}

/** `link` is written `Link`, as documents name headers; `etag` as RFC 9110 writes it. */
function headerName(name: string): string {
  return name === 'etag' ? 'ETag' : name.replace(/(^|-)[a-z]/g, (letter) => letter.toUpperCase());
}

function responseHeaderName(name: string): ResponseHeaderName {
  const documented = headerName(name);
  if (!Object.hasOwn(RESPONSE_HEADERS, documented)) throw new Error(`an example answers the header ${name}, which no answer documents`);
  return documented as ResponseHeaderName;
}

function describeRequest({ request, given, condition }: OperationExample): string {
  const text = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : exactJsonText(request.body);
  const body =
    text === undefined
      ? ''
      : text.length <= MAX_SHOWN_BODY_CHARS
        ? `, \`Content-Type: ${request.contentType ?? '-'}\` and the body \`${text}\``
        : `, and a body of ${Buffer.byteLength(text)} bytes`;
  const stored = given === undefined ? '' : `, when the store holds ${given.map((plant) => `plant ${plant.id}`).join(', ')}`;
  const also = condition === undefined ? '' : `, when ${condition}`;
  const headers = Object.entries(request.headers ?? {})
    .map(([name, value]) => `, \`${headerName(name)}: ${value}\``)
    .join('');
  return `The answer to \`${request.method} ${request.url}\` ${describeToken(request)}${headers}${body}${stored}${also}.`;
}

function describeToken({ token }: ExampleRequest): string {
  return {
    valid: 'with a valid bearer token',
    none: 'without an Authorization header',
    invalid: 'with a bearer token the service does not accept',
    readOnly: 'with a valid JWT access token whose scope is `plants:read`',
    writeOnly: 'with a valid JWT access token whose scope is `plants:write`',
  }[token];
}
