/** A HEAD asks for what a GET answers, without the body (RFC 9110 section 9.3.2), which Fastify leaves out. */
export function answeredMethod(method: string): string {
  return method === 'HEAD' ? 'GET' : method;
}
