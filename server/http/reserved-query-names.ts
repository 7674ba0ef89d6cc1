import { httpError } from '../errors/http-error.js';

const RESERVED = ['__proto__', 'constructor', 'prototype'];

/** Checked before the REST adapter copies the query into a plain object, where `__proto__` would vanish unnoticed. */
export function reservedParameterError(query: unknown): Error | undefined {
  const names = RESERVED.filter((name) => Object.hasOwn(query as object, name));
  if (names.length === 0) return undefined;
  return unknownParametersError(names, `no operation takes ${names.length > 1 ? 'them' : 'it'}`);
}

/** A 400 naming query parameters the operation does not take, and why. */
export function unknownParametersError(names: readonly string[], why: string): Error {
  return httpError(400, `unknown parameter${names.length > 1 ? 's' : ''} ${names.map((name) => JSON.stringify(name)).join(', ')}: ${why}`);
}
