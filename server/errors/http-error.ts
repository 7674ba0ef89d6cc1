/** An HTTP-layer error carrying the status it is answered with, as Fastify's own errors do. */
export function httpError(statusCode: number, message: string, headers?: Record<string, string>): Error {
  return Object.assign(new Error(message), { statusCode, ...(headers && { headers }) });
}

/** The refusal of a request target that is neither a path nor an http URL with a host. */
export const TARGET_FORM_MESSAGE = 'the request target must be a path such as /plants, or an http URL with a host and no user name';
