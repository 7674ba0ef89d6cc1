/** A HEAD asks for what a GET answers, without the body (RFC 9110 section 9.3.2), so it is judged as that GET. */
export function answeredMethod<Method extends string>(method: Method): Method | 'GET' {
  return method === 'HEAD' ? 'GET' : method;
}
