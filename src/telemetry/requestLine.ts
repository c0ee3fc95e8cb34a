// The one line each answered request writes at info, `request completed`, for an operator to query: which
// route, operation and API version, which status and Error code, which account and key, how long. Never the
// key, the raw URL or a path parameter: the route is the template the request matched.
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { errorCodeOf } from '../serving/reply.js';
import { requestTrace } from '../traceContext.js';

/** Fastify's `/v1/store/orders/:orderId`, written as the contract writes it: `/v1/store/orders/{orderId}`. */
function routeTemplate(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Each route's template, by its config, which is one object for the route's life. */
const ROUTES = new WeakMap<object, string>();

/** The template of the route a request matched; none for a request that matched no route. */
export function routeOf(config: object & { url?: string }): string | undefined {
  if (config.url === undefined) return undefined;
  let route = ROUTES.get(config);
  if (route === undefined) ROUTES.set(config, (route = routeTemplate(config.url)));
  return route;
}

/**
 * Fastify's own request lines: `incoming request`, at debug (one line per request at info is the one to
 * query, written once the answer is known), and `request completed` with the fields above, besides those
 * Fastify wrote (`res.statusCode`, `responseTime`) for the pipelines that read them.
 */
export class RequestLines extends LogController {
  /** Whether the log writes debug, info or error, asked once: at LOG_LEVEL=warn a request builds nothing. */
  #levels: { debug: boolean; info: boolean; error: boolean } | undefined;

  override incomingRequest(request: FastifyRequest): void {
    if (this.#writes(request).debug) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const { info, error: errors } = this.#writes(request);
    const { log } = request.server;
    if (error) {
      if (errors) log.error({ ...this.#fields(request, reply), err: error }, 'request errored');
    } else if (info) log.info(this.#fields(request, reply), 'request completed');
  }

  #writes(request: FastifyRequest): { debug: boolean; info: boolean; error: boolean } {
    const { log } = request.server;
    return (this.#levels ??= { debug: writes(log, 'debug'), info: writes(log, 'info'), error: writes(log, 'error') });
  }

  #fields(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
    const { config } = request.routeOptions;
    const { principal } = request;
    const { traceId, spanId } = requestTrace(request.raw);
    return {
      reqId: request.id,
      traceId,
      spanId,
      method: request.method,
      route: routeOf(config),
      apiVersion: config.apiVersion,
      operationId: config.operationId,
      res: reply,
      code: errorCodeOf(reply),
      account: principal?.accountName,
      keyId: principal?.keyId,
      responseTime: reply.elapsedTime,
    };
  }
}

/** pino tells whether a level is written; a logger that cannot is taken to write every level. */
function writes(log: FastifyBaseLogger, level: 'debug' | 'info' | 'error'): boolean {
  return (log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.(level) ?? true;
}
