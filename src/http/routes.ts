// The routes of each API root (/v1, /v2): one Fastify route per operation of its contract, each answering
// through the pipeline, and one for everything else under the root: 405 with `Allow` on a path the
// contract has with other methods, 404 on any other path (a trailing slash is another path).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { andThen } from '../awaitable.js';
import { operationsOf, type Contract } from '../contract/document.js';
import type { AnswersFirst } from '../serving/commonAnswers.js';
import { allowedMethodsOf, methodNotAllowed, NO_SUCH_PATH } from '../serving/methods.js';
import { send } from '../serving/reply.js';
import type { Principal } from '../store/store.js';
import type { OperationTable } from './operationTable.js';
import { type PipelineDependencies, respond } from './pipeline.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's key belongs to, once it is authenticated. */
    principal: Principal | undefined;
  }
}

/** One version of the API: its contract, and its operations as the pipeline runs them. */
export interface ServedApi {
  contract: Contract;
  table: OperationTable;
}

/** `opening` is what a listener does first with every request (commonAnswers.ts). */
export function registerOperations(
  app: FastifyInstance,
  apis: readonly ServedApi[],
  opening: AnswersFirst,
  dependencies: PipelineDependencies,
): void {
  app.decorateRequest('principal', undefined);
  for (const { contract, table } of apis) {
    // A failure also fails each request that needs validation (500); here it is logged once, not thrown.
    let loading: Promise<unknown> | undefined;
    const loadValidators = () => {
      loading ??= table.load().catch((error: unknown) => app.log.error({ err: error }, 'cannot load the validators'));
    };
    // The validators are loaded once a first request is answered, not in its way.
    const answeredFirst = (reply: FastifyReply) => {
      if (loading === undefined) loadValidators();
      return reply;
    };
    for (const operation of table.operations) {
      // Fastify reads no body of a GET, so nothing needs doing before its handler: the handler opens the
      // request, with no hook. Before reading any other's body, the hook hides its Content-Type (rawBodies.ts).
      const opensItself = operation.method === 'GET';
      app.route({
        method: operation.method,
        url: operation.url,
        config: { operationId: operation.operationId, apiVersion: operation.version, opensItself },
        // Not an async function: a request that waits for nothing is answered in its turn, with no promise
        // (and then returns nothing, as Fastify asks of a handler that sent its reply itself).
        handler: (request, reply) => {
          if (opensItself && opening(request, reply)) return;
          const answered = respond(operation, request, reply, dependencies);
          if (answered instanceof Promise) return andThen(answered, () => answeredFirst(reply));
          answeredFirst(reply);
        },
      });
    }
    // Without requests, they are loaded soon after start anyway.
    app.addHook('onListen', (done) => {
      setTimeout(loadValidators, 1_000).unref();
      done();
    });
    answerOtherPaths(app, contract);
  }
}

function answerOtherPaths(app: FastifyInstance, { root, document }: Contract): void {
  const allowedMethods = allowedMethodsOf(operationsOf(document));
  app.all(`${root}/*`, async (request, reply) => {
    const allowed = allowedMethods((request.url.split('?', 1)[0] as string).slice(root.length));
    return send(reply, allowed.length > 0 ? methodNotAllowed(request.method, allowed) : NO_SUCH_PATH);
  });
}
