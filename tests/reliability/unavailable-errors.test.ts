// Which failures of the MongoDB driver mean "MongoDB is unavailable" (503, logged once per outage)
// rather than a fault of the service (500, logged each time).
import { MongoExpiredSessionError, MongoNetworkError, MongoServerError, MongoTopologyClosedError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { MongoDeadlineError } from '../../server/db/operation-deadlines.js';
import { isUnavailable } from '../../server/db/mongo-errors.js';

const socketError = (code: string) => Object.assign(new Error('This socket has been ended by the other party'), { code });

describe('isUnavailable', () => {
  it.each<[string, unknown]>([
    ['an operation past its deadline', new MongoDeadlineError(3000)],
    ['a network error', new MongoNetworkError('connection reset')],
    ['a closed topology', new MongoTopologyClosedError()],
    ['a server shutting down', new MongoServerError({ code: 91, errmsg: 'shutdown in progress' })],
    ["a write to a connection the server closed (Node's EPIPE, passed on by the driver as it is)", socketError('EPIPE')],
    ['a reset connection', socketError('ECONNRESET')],
    ['a cursor the server dropped', new MongoServerError({ code: 43, errmsg: 'cursor id 7 not found' })],
    ['a later round trip of an operation whose session its deadline ended', new MongoExpiredSessionError()],
  ])('%s: unavailable', (_case, error) => {
    expect(isUnavailable(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a duplicate key', new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' })],
    ['a bad value', new MongoServerError({ code: 2, errmsg: 'BadValue' })],
    ['a programming error', new TypeError('x is not a function')],
    ['an error with another code', socketError('ERR_INVALID_ARG_TYPE')],
  ])('%s: not unavailable', (_case, error) => {
    expect(isUnavailable(error)).toBe(false);
  });
});
