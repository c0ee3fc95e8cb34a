// GET /metrics: the Prometheus text, behind a bearer token when METRICS_TOKEN is set; served on the API's
// listener, or alone on a listener of its own (METRICS_PORT). Refusals are the Error body, as everywhere.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { apiError } from '../contract/errorBody.js';
import { bearerToken } from '../serving/bearerToken.js';
import { answerLikeTheApi } from '../serving/commonAnswers.js';
import { writeClientError } from '../serving/errors.js';
import { framingError } from '../serving/framing.js';
import { readOnlyRoute } from '../serving/methods.js';
import { sentFields } from '../serving/rawHeaders.js';
import { send } from '../serving/reply.js';
import { requestIdFor } from '../serving/requestId.js';
import type { Metrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

const TOKEN_REQUIRED = apiError('unauthorized', 'The metrics token is required', {
  'WWW-Authenticate': 'Bearer realm="store-orders-metrics"',
});

type MetricsHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export function metricsHandler(metrics: Metrics, token: string | undefined): MetricsHandler {
  const tokenDigest = token === undefined ? undefined : sha256(token);
  return async (request, reply) => {
    if (tokenDigest && !presents(tokenDigest, sentFields(request.raw).authorization)) {
      return send(reply, TOKEN_REQUIRED);
    }
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  };
}

/** A listener that serves /metrics and nothing else. */
export function buildMetricsServer(metrics: Metrics, token: string | undefined): FastifyInstance {
  const server = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    genReqId: (request) => requestIdFor(request.headers['x-request-id']),
    // What Node cannot parse as HTTP, and framing it lets through, are refused with the Error body here
    // too, as on the API's listener: not with Fastify's body, nor Node's empty 400 for a missing Host.
    clientErrorHandler: writeClientError,
    http: { requireHostHeader: false },
  });
  answerLikeTheApi(server, (request, reply) => {
    const malformed = framingError(request.raw);
    if (malformed) send(reply, malformed);
    return malformed !== undefined;
  });
  readOnlyRoute(server, METRICS_PATH, metricsHandler(metrics, token));
  return server;
}

/**
 * Digests of equal length, compared in constant time: neither the token's length nor its first differing
 * byte shows in the timing.
 */
function presents(tokenDigest: Buffer, authorization: string | undefined): boolean {
  const offered = bearerToken(authorization);
  return offered !== undefined && timingSafeEqual(sha256(offered), tokenDigest);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
