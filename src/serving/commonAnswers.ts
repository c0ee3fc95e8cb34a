// What every listener of the server does, the API's and the metrics' alike: an X-Request-Id and
// `Cache-Control: no-store` on every answer, and the Error body for every error and every unknown path.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ErrorAnswer } from '../contract/errorBody.js';
import { errorAnswerFor } from './errors.js';
import { NO_SUCH_PATH } from './methods.js';
import { send } from './reply.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's handler opens each request itself (with what answerLikeTheApi returns): no hook does. */
    opensItself?: boolean;
  }
}

/** Answers the request before anything else when it must; true when it did. */
export type AnswersFirst = (request: FastifyRequest, reply: FastifyReply) => boolean;

/**
 * Opens every request: its common header fields, then `first`, the rest of the listener's work before
 * any other. Every route runs it as an onRequest hook of its own, the unknown paths' included, but a route
 * that opens requests itself (`config.opensItself`) with the function returned: Fastify's cost is per hook,
 * and every request pays it. Registered before any route.
 */
export function answerLikeTheApi(app: FastifyInstance, first: AnswersFirst): AnswersFirst {
  const opening: AnswersFirst = (request, reply) => {
    // Answers are for one authenticated caller, or refusals: no cache may keep any of them.
    reply.header('x-request-id', request.id).header('cache-control', 'no-store');
    return first(request, reply);
  };
  // A hook that answers does not call done().
  const hook: onRequestHookHandler = (request, reply, done) => {
    if (!opening(request, reply)) done();
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.opensItself) return;
    route.onRequest = [hook, ...[route.onRequest ?? []].flat()];
  });
  // The unknown paths' handler runs the hooks of the plugin it is set in.
  app.register((unknownPaths, _options, done) => {
    unknownPaths.addHook('onRequest', hook);
    unknownPaths.setNotFoundHandler((_request, reply) => send(reply, NO_SUCH_PATH));
    done();
  });
  app.setErrorHandler((error, request, reply) => send(reply, answerToFailure(request, error)));
  return opening;
}

/** The Error body for whatever was thrown; an unexpected error is logged, for its answer says nothing. */
export function answerToFailure(request: FastifyRequest, error: unknown): ErrorAnswer {
  const { answer, expected } = errorAnswerFor(error);
  if (!expected) request.log.error({ err: error }, 'request failed');
  return answer;
}
