/**
 * An error raised by the HTTP layer with the status it is answered with, as Fastify's own
 * errors carry one; server/errors/rest-error.ts shapes it like every other failure.
 */
export function httpError(statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { statusCode });
}
