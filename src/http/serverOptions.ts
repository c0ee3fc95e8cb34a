// Fastify's options for the API's listener: logging with keys redacted, request ids, the HTTP limits, and
// the Error body for what goes wrong before a request reaches a route.
import type { FastifyHttpOptions, FastifyServerOptions, LogController } from 'fastify';
import type { Server } from 'node:http';
import { pino } from 'pino';
import type { HttpLimits, LogLevel } from '../config.js';
import { writeClientError } from '../serving/errors.js';
import { requestIdFor } from '../serving/requestId.js';
import type { BeforeRouting } from './beforeRouting.js';
import { serializeRequest } from './logRedaction.js';

/** How each request logs (the composition root gives telemetry's). */
export interface RequestLogging {
  /** Makes each request's logger from the listener's. */
  childLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']>;
  /** Writes the lines Fastify writes for every request, such as the one of an answered request. */
  logController: LogController;
}

export interface ListenerOptions {
  http: HttpLimits;
  logLevel?: LogLevel;
  /** Where log lines go, one JSON line per call; pino's own standard output when absent. */
  logStream?: { write(line: string): void };
}

export function serverOptions(
  { http, logLevel, logStream }: ListenerOptions,
  beforeRouting: BeforeRouting,
  requestLogging: RequestLogging,
): FastifyHttpOptions<Server> {
  return {
    loggerInstance: pino(
      {
        level: logLevel ?? 'info',
        serializers: { req: serializeRequest },
        // Fastify's request serializer logs no headers; this keeps it so if serializers ever change.
        redact: {
          paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
          censor: '[redacted]',
        },
      },
      logStream,
    ),
    childLoggerFactory: requestLogging.childLoggerFactory,
    logController: requestLogging.logController,
    genReqId: (request) => requestIdFor(request.headers['x-request-id']),
    // As long as Node's own header limit, so an over-long id reaches validation (400) rather than
    // failing to route (404).
    routerOptions: { maxParamLength: 16 * 1024 },
    // HEAD is not in the contract: it must reach the 405 path, not a copy of the GET route. The server's
    // own read-only paths ask for it route by route (serving/methods.ts).
    exposeHeadRoutes: false,
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionTimeout: http.idleTimeoutMs,
    http: {
      // Node's own answer to a missing Host is an empty 400; framing.ts answers it with the Error body.
      requireHostHeader: false,
      headersTimeout: http.headersTimeoutMs,
      // Node looks for late headers and bodies only every so often (30 s by default), which would let a
      // slow client keep its socket far past headersTimeout.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(http.headersTimeoutMs / 4))),
    },
    clientErrorHandler: writeClientError,
    frameworkErrors: beforeRouting.frameworkErrors,
  };
}
