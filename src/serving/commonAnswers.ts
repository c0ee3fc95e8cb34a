// What every listener of the server does, the API's and the metrics' alike: an X-Request-Id and
// `Cache-Control: no-store` on every answer, and the Error body for every error and every unknown path.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ErrorAnswer } from '../contract/errorBody.js';
import { errorAnswerFor } from './errors.js';
import { NO_SUCH_PATH } from './methods.js';
import { send } from './reply.js';

export type OnRequest = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * `then` is the rest of the listener's onRequest work, run in the same hook: Fastify's cost is per hook,
 * and every request pays it. It calls `done` unless it answers.
 */
export function answerLikeTheApi(app: FastifyInstance, then: OnRequest): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Answers are for one authenticated caller, or refusals: no cache may keep any of them.
    // In lower case, as Fastify writes header names: then it has nothing to convert on every request.
    reply.header('x-request-id', request.id).header('cache-control', 'no-store');
    then(request, reply, done);
  });
  app.setErrorHandler((error, request, reply) => send(reply, answerToFailure(request, error)));
  app.setNotFoundHandler((_request, reply) => send(reply, NO_SUCH_PATH));
}

/** The Error body for whatever was thrown; an unexpected error is logged, for its answer says nothing. */
export function answerToFailure(request: FastifyRequest, error: unknown): ErrorAnswer {
  const { answer, expected } = errorAnswerFor(error);
  if (!expected) request.log.error({ err: error }, 'request failed');
  return answer;
}
