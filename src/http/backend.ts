// Every request to /v1 goes through the API's documented order of checks:
//   routing (404/405) → sunset (410) → failed-auth quota of the address (429) → bearer auth (401) →
//   quota of the key (429) → body (413/415/400) → contract validation (400) → handler.
// openapi-backend holds the operation table and the compiled validators. Each operation also gets a Fastify
// route of its own (`routes`), which runs those stages directly: openapi-backend's per-request matching and
// request normalizing cost more than everything else in a small request. Whatever no such route takes
// (wrong methods, unknown paths) goes through openapi-backend's own pipeline (`dispatch`), whose stage
// handlers call the same functions.

import type { Readable } from 'node:stream';
import type { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Request as ApiRequest, type Context, OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { type DeprecationPolicy, deprecationPolicies, gone, isPastSunset } from '../contract/deprecation.js';
import { API_ROOT, type Contract, operationsOf } from '../contract/document.js';
import { apiError } from '../contract/errorBody.js';
import type { Dependencies, Handlers, OperationId } from '../contract/types.js';
import type { Principal, Store } from '../store/store.js';
import { authenticate, WWW_AUTHENTICATE } from './auth.js';
import { readJsonBody } from './body.js';
import { conditionalGet, supportsConditionalGet } from './conditional.js';
import { ApiError } from './errors.js';
import { allowedMethodsOf, methodNotAllowed } from './methods.js';
import { sendContinue } from './nodeServer.js';
import { invalidIntegerParameter } from './parameters.js';
import { singleHeader } from './rawHeaders.js';
import type { RequestQuotas } from './quotas.js';
import { type ResultValue, toWire, type WireResponse } from './reply.js';
import { describeValidationErrors } from './validation.js';

/** What openapi-backend hands every stage for one request. */
export interface Exchange {
  request: FastifyRequest;
  reply: FastifyReply;
  /** The request as openapi-backend sees it; its body is filled in once the caller is authenticated. */
  apiRequest: ApiRequest;
  /** The Content-Type the client sent (see app.ts for why it is kept aside). */
  contentType: string | undefined;
}

export interface BackendOptions {
  contract: Contract;
  store: Store;
  handlers: Handlers;
  now: () => Date;
  quotas: RequestQuotas;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's key belongs to, once it is authenticated. */
    principal: Principal | undefined;
  }
}

export interface OperationRoute {
  operationId: OperationId;
  method: string;
  /** The operation's path as a Fastify route, under /v1. */
  url: string;
  handle(exchange: Exchange): Promise<WireResponse>;
}

export interface Backend {
  routes: OperationRoute[];
  dispatch(exchange: Exchange): Promise<WireResponse>;
}

export async function createBackend({
  contract,
  store,
  handlers,
  now,
  quotas,
}: BackendOptions): Promise<Backend> {
  const operations = operationsOf(contract.document);
  const policies = deprecationPolicies(operations);
  const allowedMethods = allowedMethodsOf(operations);
  const conditional = new Set(
    operations.filter(({ definition }) => supportsConditionalGet(definition)).map((o) => o.operationId),
  );

  const api = new OpenAPIBackend({
    definition: contract.document,
    apiRoot: API_ROOT,
    strict: true,
    // Paths match the contract exactly: `/store/orders/` is not `/store/orders`.
    ignoreTrailingSlashes: false,
    // Quick mode skips re-validating openapi.yaml at every start (Spectral and Redocly check it in CI) and
    // compiles validators on demand: the request validators in the background right after init (below),
    // the response validators, which the server never runs, not at all.
    quick: true,
    coerceTypes: true,
    validate: (context: Context) =>
      hasAnythingToValidate(
        context.operation as OpenAPIV3.OperationObject,
        context.request as { query?: object; headers: Record<string, unknown> },
      ),
    customizeAjv: (ajv) => {
      addFormats.default(ajv, ['date-time']);
      // Path integers arrive as text and are range-checked exactly in parameters.ts; after coercion to a
      // float, 2^63 - 1 rounds up to 2^63 and openapi-backend's own int64 check would refuse it.
      ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
      return ajv;
    },
    securityHandlers: {
      bearerAuth: (_context: Context, { request }: Exchange): Principal | false => {
        // Refused by unauthorizedHandler, unlooked-up and uncounted (see handleRouted).
        if (sendsKeyInUrl(request)) return false;
        request.principal = authenticate(singleHeader(request.raw.rawHeaders, 'authorization'), store);
        if (!request.principal) quotas.authenticationFailed(request.ip);
        return request.principal ?? false;
      },
    },
    handlers: {
      notFound: () => toWire(apiError(404, 'not_found', 'No such path')),
      methodNotAllowed: (_context: Context, { apiRequest }: Exchange) =>
        toWire(methodNotAllowed(apiRequest.method, allowedMethods(apiRequest.path.slice(API_ROOT.length)))),
      postRoutingHandler: (context: Context, { request, reply }: Exchange) => {
        // Also called when routing failed, with no operation.
        if (!context.operation) return;
        const policy = policies.get(context.operation.operationId as string);
        if (policy) applyDeprecation(policy, reply, now());
        const blocked = quotas.beforeAuthentication(request.ip);
        if (blocked) throw new ApiError(blocked);
      },
      unauthorizedHandler: (_context: Context, { request }: Exchange) => unauthorized(request),
      postSecurityHandler: async (context: Context, exchange: Exchange) => {
        if (!context.security.authorized) return;
        const principal = context.security.bearerAuth as Principal;
        const overQuota = quotas.afterAuthentication(principal.keyId, exchange.reply);
        if (overQuota) throw new ApiError(overQuota);
        await checkPathAndReadBody(
          context.operation as OpenAPIV3.OperationObject,
          context.request.params as Record<string, unknown>,
          exchange,
        );
      },
      validationFail: (context: Context) => invalidRequest(context.validation.errors),
      ...operationHandlers(),
    },
  });
  await api.init();
  compileInTheBackground(
    api,
    operations.map(({ operationId }) => operationId),
  );
  // openapi-backend's copies of the operations have every `$ref` resolved.
  const resolvedOperations = new Map(
    api.router.getOperations().map((operation) => [operation.operationId as string, operation]),
  );
  type ResolvedOperation = NonNullable<ReturnType<typeof resolvedOperations.get>>;
  const headerParameters = new Map(
    [...resolvedOperations].map(([operationId, operation]) => [
      operationId,
      ((operation.parameters ?? []) as OpenAPIV3.ParameterObject[])
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name),
    ]),
  );

  /** The last stage: the operation's handler, then conditional GET where the contract documents it. */
  async function runOperation(
    operationId: OperationId,
    principal: Principal,
    { path, pathText }: { path: unknown; pathText: unknown },
    exchange: Exchange,
  ): Promise<WireResponse> {
    const handler = handlers[operationId] as (
      input: unknown,
      dependencies: Dependencies,
    ) => ResultValue | Promise<ResultValue>;
    const headers: Record<string, string | undefined> = {};
    for (const name of headerParameters.get(operationId) ?? []) {
      // Validated: a repeated field reaches here joined with ", ", which no header pattern allows.
      const value = exchange.request.headers[name.toLowerCase()];
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const input = { path, pathText, body: exchange.apiRequest.body as unknown, headers };
    const wire = toWire(await handler(input, { store, principal, now }));
    return conditional.has(operationId)
      ? conditionalGet(wire, exchange.request.headers['if-none-match'])
      : wire;
  }

  function operationHandlers() {
    const registered: Record<string, (context: Context, exchange: Exchange) => Promise<WireResponse>> = {};
    for (const operationId of Object.keys(handlers) as OperationId[]) {
      registered[operationId] = (context, exchange) => {
        // context.request is re-parsed from the raw path after validation, so only the validator's
        // coerced copy has the parameters as the contract's types.
        const coerced = context.validation?.coerced as { params?: unknown } | undefined;
        const parameters = { path: coerced?.params ?? {}, pathText: context.request.params as unknown };
        return runOperation(operationId, context.security.bearerAuth as Principal, parameters, exchange);
      };
    }
    return registered;
  }

  /**
   * The stages after routing, for requests Fastify routes to the operation. Its resolved copy and its
   * deprecation policy are looked up once, when the route is made.
   */
  function routeTo(operationId: OperationId): OperationRoute['handle'] {
    const operation = resolvedOperations.get(operationId) as ResolvedOperation;
    const policy = policies.get(operationId);
    return (exchange) => handleRouted(operationId, operation, policy, exchange);
  }

  async function handleRouted(
    operationId: OperationId,
    operation: ResolvedOperation,
    policy: DeprecationPolicy | undefined,
    exchange: Exchange,
  ): Promise<WireResponse> {
    const definition = operation as OpenAPIV3.OperationObject;
    if (policy) applyDeprecation(policy, exchange.reply, now());
    const { ip } = exchange.request;
    const blocked = quotas.beforeAuthentication(ip);
    if (blocked) return toWire(blocked);
    // A key in the URL is in logs and histories already: it is neither looked up (so the answer tells
    // nothing about it) nor counted as a failed guess.
    if (sendsKeyInUrl(exchange.request)) return unauthorized(exchange.request);
    const principal = authenticate(singleHeader(exchange.request.raw.rawHeaders, 'authorization'), store);
    if (!principal) {
      quotas.authenticationFailed(ip);
      return unauthorized(exchange.request);
    }
    const overQuota = quotas.afterAuthentication(principal.keyId, exchange.reply);
    if (overQuota) return toWire(overQuota);
    exchange.request.principal = principal;
    await checkPathAndReadBody(definition, exchange.request.params as Record<string, unknown>, exchange);
    let path: unknown = {};
    if (hasAnythingToValidate(definition, exchange.apiRequest)) {
      // The operation itself: given its id, openapi-backend would rebuild its operation list.
      const validation = api.validator.validateRequest(exchange.apiRequest, operation);
      if (validation.errors) return invalidRequest(validation.errors);
      path = (validation.coerced as { params?: unknown }).params ?? {};
    }
    const parameters = { path, pathText: exchange.request.params };
    return runOperation(operationId, principal, parameters, exchange);
  }

  return {
    routes: operations.map((operation) => ({
      operationId: operation.operationId as OperationId,
      method: operation.method.toUpperCase(),
      url: `${API_ROOT}${operation.path.replace(/\{([^}]+)\}/g, ':$1')}`,
      handle: routeTo(operation.operationId as OperationId),
    })),
    dispatch: (exchange) => api.handleRequest(exchange.apiRequest, exchange) as Promise<WireResponse>,
  };
}

/**
 * Compiling the request validators takes about 100 ms. One operation per turn of the event loop, right
 * after start, keeps that off the way of the first requests; an operation asked for before its turn is
 * compiled on demand.
 */
function compileInTheBackground(api: OpenAPIBackend, operationIds: string[]): void {
  const [next, ...rest] = operationIds;
  if (next === undefined) return;
  setImmediate(() => {
    api.validator.getRequestValidatorsForOperation(next);
    compileInTheBackground(api, rest);
  });
}

/** RFC 6750 §2.3 lets a bearer token travel as `access_token` in the query; this API does not. */
function sendsKeyInUrl(request: FastifyRequest): boolean {
  return Object.hasOwn(request.query as object, 'access_token');
}

function unauthorized(request: FastifyRequest): WireResponse {
  const message = sendsKeyInUrl(request)
    ? 'Send the API key in the Authorization header, not in the URL'
    : 'A valid API key is required';
  return toWire(apiError(401, 'unauthorized', message, { 'WWW-Authenticate': WWW_AUTHENTICATE }));
}

/** Checks integer path parameters on their raw text, then reads the body once the caller is known. */
async function checkPathAndReadBody(
  definition: OpenAPIV3.OperationObject,
  rawPathParams: Record<string, unknown>,
  { request, reply, apiRequest, contentType }: Exchange,
): Promise<void> {
  const invalid = invalidIntegerParameter(definition, rawPathParams);
  if (invalid) throw new ApiError(invalid);
  if (definition.requestBody) {
    apiRequest.body = await readJsonBody({
      payload: request.body as Readable | undefined,
      contentType,
      contentLength: request.headers['content-length'],
      contentEncoding: request.headers['content-encoding'],
      beforeReading: () => sendContinue(request.raw, reply.raw),
    });
  }
}

function invalidRequest(errors: ErrorObject[] | null | undefined): WireResponse {
  return toWire(apiError(400, 'invalid_request', describeValidationErrors(errors ?? [])));
}

function applyDeprecation(policy: DeprecationPolicy, reply: FastifyReply, now: Date): void {
  reply.headers(policy.headers);
  if (isPastSunset(policy, now)) throw new ApiError(gone(policy));
}

/**
 * Validation costs more than the rest of a small request. It is skipped only when it cannot fail: the
 * operation takes no path parameters and no body, and the request carries no query and none of the
 * operation's header parameters.
 */
function hasAnythingToValidate(
  operation: OpenAPIV3.OperationObject,
  { query, headers }: { query?: object | string | undefined; headers: Record<string, unknown> },
): boolean {
  if (operation.requestBody) return true;
  if (typeof query === 'string' ? query !== '' : Object.keys(query ?? {}).length > 0) return true;
  return ((operation.parameters ?? []) as OpenAPIV3.ParameterObject[]).some(
    (parameter) =>
      parameter.in === 'path' || (parameter.in === 'header' && parameter.name.toLowerCase() in headers),
  );
}
