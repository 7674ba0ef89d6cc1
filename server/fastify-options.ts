import type { FastifyHttpOptions, FastifyLoggerOptions } from 'fastify';
import type { Server } from 'node:http';
import { appRouter } from '../routers/app.js';
import type { Config } from './config.js';
import { answerClientError } from './http/client-errors.js';
import { parseQueryKeepingEmptyValues } from './http/empty-query-values.js';
import { frameworkErrorHandler } from './http/error-handling.js';
import { createRequestIdGenerator } from './http/request-ids.js';
import { originForm } from './http/request-target.js';
import { OneLinePerRequest } from './http/request-log.js';
import { requestLoggerFactory } from './http/request-logger.js';
import { TRPC_PREFIX } from './routes/trpc-routes.js';

const MAX_REQUEST_LINE_BYTES = 16_384;

export function fastifyOptions(
  config: Pick<Config, 'logLevel' | 'http'>,
  logStream: FastifyLoggerOptions['stream'] | undefined,
): FastifyHttpOptions<Server> {
  const requestTimeouts = requestTimeoutOptions(config.http.requestTimeoutMs);
  return {
    logger: { level: config.logLevel, redact: ['req.headers.authorization'], ...(logStream && { stream: logStream }) },
    logController: new OneLinePerRequest(),
    childLoggerFactory: requestLoggerFactory,
    genReqId: createRequestIdGenerator(),
    bodyLimit: config.http.bodyLimit,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // A stalled request's connection stays idle until the sweep answers it 408: closing it sooner would leave no answer.
    connectionTimeout: Math.max(
      config.http.responseTimeoutMs,
      config.http.requestTimeoutMs + requestTimeouts.connectionsCheckingInterval + 1_000,
    ),
    // The client address (request.ip, which the failed-auth limit counts by) behind a load balancer.
    trustProxy: config.http.trustProxy,
    // A request without Host is refused by the app's request refusals, in its error shape and logged.
    http: { ...requestTimeouts, requireHostHeader: false },
    clientErrorHandler: answerClientError,
    frameworkErrors: frameworkErrorHandler({ prefix: TRPC_PREFIX, router: appRouter }),
    rewriteUrl: originForm,
    // A tRPC batch names its procedures in one path parameter; Node's header limit already bounds the request line.
    routerOptions: { querystringParser: parseQueryKeepingEmptyValues, maxParamLength: MAX_REQUEST_LINE_BYTES },
    // While closing, requests already on open connections are answered as usual.
    return503OnClosing: false,
  };
}

/** Node checks requestTimeout only on its connection sweep (30 s by default, here an eighth of it) and lets a larger headersTimeout win. */
function requestTimeoutOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(25, Math.floor(requestTimeoutMs / 8))),
  };
}
