/** Matched loosely: a log loses a harmless value at worst. */
const SECRET_NAME = /token|secret|pass|pwd|key|sig|auth|code|cred|session|jwt|cookie/i;

export const REDACTED = '[REDACTED]';

/** Clients put tokens in query strings however often they are told not to, and a log line must not keep them. */
export function withQuerySecretsRedacted(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const parameters = url.slice(start + 1).split('&');
  let redacted = false;
  for (const [index, parameter] of parameters.entries()) {
    const equals = parameter.indexOf('=');
    if (equals === -1 || !SECRET_NAME.test(decodedName(parameter.slice(0, equals)))) continue;
    parameters[index] = `${parameter.slice(0, equals + 1)}${REDACTED}`;
    redacted = true;
  }
  return redacted ? `${url.slice(0, start + 1)}${parameters.join('&')}` : url;
}

/** A parameter name as a query parser reads it (`+` a space, percent-escapes decoded), or as sent when it cannot be decoded. */
function decodedName(name: string): string {
  if (!name.includes('%')) return name;
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}
