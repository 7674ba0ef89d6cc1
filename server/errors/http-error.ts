/** An HTTP-layer error carrying the status it is answered with, as Fastify's own errors do. */
export function httpError(statusCode: number, message: string, headers?: Record<string, string>): Error {
  return Object.assign(new Error(message), { statusCode, ...(headers && { headers }) });
}
