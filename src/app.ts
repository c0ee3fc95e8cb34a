// Builds the Fastify server: the contract's operations under /v1, the contract itself, its API reference
// at /docs, health probes, and the single place where every error becomes the Error body.
import { Readable, type Writable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  DEFAULT_HTTP_LIMITS,
  DEFAULT_RATE_LIMITS,
  type HttpLimits,
  type LogLevel,
  type MetricsConfig,
  type RateLimits,
} from './config.js';
import { deprecatedOperationAt, deprecationPolicies, gone, isPastSunset } from './contract/deprecation.js';
import { API_ROOT, type Contract, operationsOf } from './contract/document.js';
import { apiError } from './contract/errorBody.js';
import type { Handlers } from './contract/types.js';
import { registerDocs } from './docs/routes.js';
import { createBackend, type Exchange } from './http/backend.js';
import { errorResultFor, writeClientError } from './http/errors.js';
import { limitConnections } from './http/connections.js';
import { framingError } from './http/framing.js';
import { serializeRequest } from './http/logRedaction.js';
import { readOnlyRoute } from './http/methods.js';
import { adaptNodeServer } from './http/nodeServer.js';
import { RequestQuotas } from './http/quotas.js';
import { send, toWire } from './http/reply.js';
import { singleHeader } from './http/rawHeaders.js';
import { requestIdFor } from './http/requestId.js';
import { cutOffWhenStalled } from './http/stalledReaders.js';
import { handlers as defaultHandlers } from './operations/index.js';
import type { Store } from './store/store.js';
import { instrument } from './telemetry/instrument.js';

export interface AppOptions {
  contract: Contract;
  store: Store;
  logLevel?: LogLevel;
  /** Where log lines go; standard output when absent. */
  logStream?: Writable;
  now?: () => Date;
  handlers?: Handlers;
  http?: HttpLimits;
  rateLimits?: RateLimits;
  /** Where /metrics is served and whether it asks for a token; on this app, open, when absent. */
  metrics?: MetricsConfig;
  /** How often the calls to deprecated operations are written to the store; 5 s when absent. */
  deprecatedCallsFlushMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Content-Type the client sent; see the onRequest hook. */
    declaredContentType: string | undefined;
  }
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { contract, now = () => new Date(), http = DEFAULT_HTTP_LIMITS } = options;
  const deprecatedOperation = deprecatedOperationAt(
    deprecationPolicies(operationsOf(contract.document)),
    API_ROOT,
  );
  /** An answer made before routing is still an answer of the deprecated operation its path names. */
  const markDeprecated = (request: FastifyRequest, reply: FastifyReply) => {
    const policy = deprecatedOperation(request.method, request.url);
    if (policy) reply.headers(policy.headers);
    return policy;
  };
  const app = Fastify({
    logger: {
      level: options.logLevel ?? 'info',
      ...(options.logStream ? { stream: options.logStream } : {}),
      serializers: { req: serializeRequest },
      // Fastify's request serializer logs no headers; this keeps it so if serializers ever change.
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    genReqId: (request) => requestIdFor(request.headers['x-request-id']),
    // As long as Node's own header limit, so an over-long id reaches validation (400) rather than
    // failing to route (404).
    routerOptions: { maxParamLength: 16 * 1024 },
    // HEAD is not in the contract: it must reach the 405 path, not a copy of the GET route. The server's
    // own read-only paths ask for it route by route (http/methods.ts).
    exposeHeadRoutes: false,
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionTimeout: http.idleTimeoutMs,
    http: {
      // Node's own answer to a missing Host is an empty 400; framing.ts answers it with the Error body.
      requireHostHeader: false,
      headersTimeout: http.headersTimeoutMs,
      // Node looks for late headers and bodies only this often (30 s by default), which would let a
      // slow client keep its socket far past headersTimeout.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(http.headersTimeoutMs / 4))),
    },
    clientErrorHandler: writeClientError,
    // Fastify's errors before routing (a malformed percent-escape) come before the onRequest hook.
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
      // A malformed escape in /v1/pets/%zz is still an answer of getPetById: it carries the operation's
      // headers, and after the sunset it is 410 like any other.
      const policy = markDeprecated(request, reply);
      const result = policy && isPastSunset(policy, now()) ? gone(policy) : errorResultFor(error).result;
      send(reply, toWire(result));
    },
  });

  limitConnections(app.server, http.maxConnections);
  adaptNodeServer(app.server, app.log);
  const store = instrument(app, {
    contract,
    store: options.store,
    now,
    metrics: options.metrics ?? {},
    deprecatedCallsFlushMs: options.deprecatedCallsFlushMs ?? 5_000,
  });

  app.decorateRequest('declaredContentType', undefined);
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request, reply) => {
    // Answers are for one authenticated caller, or refusals: no cache may keep any of them.
    reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
    const malformed = framingError(request.raw);
    if (malformed) {
      // Refused before any check, the sunset included.
      markDeprecated(request, reply);
      return send(reply, toWire(malformed));
    }
    // Fastify refuses a malformed Content-Type (415) before any route runs, which would answer before
    // authentication. The header is kept aside and the body handed over unparsed; http/body.ts judges it
    // once the caller is known. Sent twice, it declares nothing usable.
    request.declaredContentType = singleHeader(request.raw.rawHeaders, 'content-type');
    delete request.headers['content-type'];
  });
  // While stopping, each answer closes its connection: a kept-alive socket would otherwise hold the
  // stop open until keepAliveTimeout.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    if (payload instanceof Readable) {
      cutOffWhenStalled(reply.raw, payload, http.idleTimeoutMs, () =>
        request.log.warn('the client stopped reading a streamed answer: its connection is reset'),
      );
    }
    done(null, payload);
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.setErrorHandler((error, request, reply) => {
    const { result, expected } = errorResultFor(error);
    if (!expected) request.log.error({ err: error }, 'request failed');
    send(reply, toWire(result));
  });
  app.setNotFoundHandler((_request, reply) =>
    send(reply, toWire(apiError(404, 'not_found', 'No such path'))),
  );

  readOnlyRoute(app, '/healthz', () => ({ status: 'ok' }));
  readOnlyRoute(app, '/readyz', (_request, reply) => {
    let ready = false;
    try {
      ready = store.isReady();
    } catch {
      // A database that throws is as unready as one that answers no.
    }
    if (ready) return { status: 'ready' };
    return send(reply, toWire(apiError(503, 'service_unavailable', 'The database is not answering')));
  });
  readOnlyRoute(app, `${API_ROOT}/openapi.yaml`, (_request, reply) =>
    reply.type('application/yaml').send(contract.yamlText),
  );
  readOnlyRoute(app, `${API_ROOT}/openapi.json`, (_request, reply) =>
    reply.type('application/json').send(contract.jsonText),
  );
  registerDocs(app);

  const backend = await createBackend({
    contract,
    store,
    now,
    handlers: options.handlers ?? defaultHandlers,
    quotas: new RequestQuotas(options.rateLimits ?? DEFAULT_RATE_LIMITS, () => now().getTime()),
  });
  for (const route of backend.routes) {
    app.route({
      method: route.method,
      url: route.url,
      config: { operationId: route.operationId },
      handler: async (request, reply) => send(reply, await route.handle(exchangeOf(request, reply))),
    });
  }
  app.all(`${API_ROOT}/*`, async (request, reply) =>
    send(reply, await backend.dispatch(exchangeOf(request, reply))),
  );

  return app;
}

function exchangeOf(request: FastifyRequest, reply: FastifyReply): Exchange {
  const headers = { ...request.headers } as Record<string, string | string[]>;
  if (request.declaredContentType !== undefined) headers['content-type'] = request.declaredContentType;
  return {
    request,
    reply,
    contentType: request.declaredContentType,
    apiRequest: {
      method: request.method,
      path: request.url.split('?')[0] as string,
      query: request.query as Record<string, string | string[]>,
      headers,
    },
  };
}
