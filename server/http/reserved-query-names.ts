import { httpError } from '../errors/http-error.js';

/** Names that are no parameter of any operation and that a plain object would not keep as its own key (`__proto__`). */
const RESERVED = ['__proto__', 'constructor', 'prototype'];

/**
 * The refusal of a query naming `__proto__`, `constructor` or `prototype`, as any unknown
 * parameter is refused; else undefined. Checked on the parsed query (whose object keeps them as
 * keys) before the REST adapter copies it into a plain object, where `__proto__` would vanish and
 * the request be answered as if it were not there.
 */
export function reservedParameterError(query: unknown): Error | undefined {
  const names = RESERVED.filter((name) => Object.hasOwn(query as object, name));
  if (names.length === 0) return undefined;
  return httpError(
    400,
    `unknown parameter${names.length > 1 ? 's' : ''} ${names.map((name) => JSON.stringify(name)).join(', ')}: no operation takes ${names.length > 1 ? 'them' : 'it'}`,
  );
}
