// The documented order of checks, for every request Fastify routed to an operation of the contract:
//   sunset (410) → address quota (429) → authentication (401) → key quota (429) → path and body (400, 413,
//   415) → validation (400) → the operation, with conditional GET where the contract documents an ETag.
// Routing (404, and 405 with Allow) comes before it, in routes.ts. Each stage answers or lets the request
// go on; the first answer comes back here, and leaves by the one exit, send() in reply.ts, with the headers
// carried for every answer of the request. A key seen before is not looked up again for an operation whose
// store call checks it (auth.ts, KnownCallers): that call's UNAUTHORIZED is the 401, and any refusal before
// it waits for the key's lookup, so that the order of answers stays as written.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { andThen, type Awaitable } from '../awaitable.js';
import type { Answer } from '../contract/answer.js';
import { refuseAfterSunset } from '../contract/deprecation.js';
import type { StoreParts } from '../operations/handler.js';
import { answerToFailure } from '../serving/commonAnswers.js';
import { send } from '../serving/reply.js';
import type { Principal } from '../store/store.js';
import { authenticateRequest, type Caller, keyRefused, type KnownCallers } from './auth.js';
import { operationBody } from './body.js';
import { conditionalGet } from './conditional.js';
import type { Operation } from './operationTable.js';
import { invalidIntegerParameter } from './parameters.js';
import type { KeyUsage, RequestQuotas } from './quotas.js';
import { validatedInput } from './validation.js';

export interface PipelineDependencies {
  callers: KnownCallers;
  parts: StoreParts;
  quotas: RequestQuotas;
  now: () => Date;
}

/** Headers every answer of this request carries, whichever stage gives it. */
interface Carried {
  headers: Record<string, string> | undefined;
}

/** Answers the request: at once when no stage waits, else once the stage that waits is done. */
export function respond(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
): Awaitable<void> {
  // Every answer of a deprecated operation says so, refusals and failures included.
  const carried: Carried = { headers: operation.deprecation?.headers };
  const failed = (error: unknown) => {
    send(reply, answerToFailure(request, error), carried.headers);
  };
  let answer: Awaitable<Answer>;
  try {
    answer = checkThenRun(operation, request, reply, dependencies, carried);
  } catch (error) {
    failed(error);
    return;
  }
  if (!(answer instanceof Promise)) {
    send(reply, answer, carried.headers);
    return;
  }
  return answer.then((settled) => {
    send(reply, settled, carried.headers);
  }, failed);
}

function checkThenRun(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
  carried: Carried,
): Awaitable<Answer> {
  const { callers, quotas, now } = dependencies;
  const gone = operation.deprecation && refuseAfterSunset(operation.deprecation, now());
  if (gone) return gone;
  return andThen(quotas.refuseAddress(request.ip), (blocked) => {
    if (blocked) return blocked;
    return andThen(authenticateRequest(request, callers, quotas, !operation.keyCheckedByStore), (caller) => {
      if ('refusal' in caller) return caller.refusal;
      request.principal = caller.principal;
      return andThen(quotas.countKey(caller.principal.keyId), (usage) =>
        checkInputThenRun(operation, request, reply, dependencies, carried, caller, usage),
      );
    });
  });
}

/** What comes after authentication; a refusal to a known caller waits for its key's lookup (401 first). */
function checkInputThenRun(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
  carried: Carried,
  { principal, known }: Caller,
  usage: KeyUsage,
): Awaitable<Answer> {
  const { callers, parts, now } = dependencies;
  const counted = usage.refusal === undefined;
  const refused = (refusal: Answer) =>
    known
      ? andThen(callers.confirm(principal), (active) =>
          active ? refusal : refuseKey(request, dependencies, carried, operation, counted && principal),
        )
      : refusal;
  // From here on, every answer to the key tells where its quota stands.
  if (usage.headers) carried.headers = carried.headers ? { ...carried.headers, ...usage.headers } : usage.headers;
  if (usage.refusal) return refused(usage.refusal);
  const invalidInteger = invalidIntegerParameter(
    operation.definition,
    request.params as Record<string, unknown>,
    request.query as Record<string, unknown>,
  );
  if (invalidInteger) return refused(invalidInteger);
  const read = operation.definition.requestBody ? operationBody(request, reply.raw) : NO_BODY;
  return andThen(read, (read) => {
    if ('refusal' in read) return refused(read.refusal);
    return andThen(validatedInput(operation, request, read.body), (checked) => {
      if ('refusal' in checked) return refused(checked.refusal);
      const store = parts[operation.operationId];
      return andThen(operation.handler(checked.input, { store, principal, now }), (answer) => {
        if (answer.status === 401) {
          // The operation's own: its store call found the key no longer active.
          callers.forget(principal);
          return refuseKey(request, dependencies, carried, operation, counted && principal);
        }
        return operation.conditional ? conditionalGet(answer, request.headers['if-none-match']) : answer;
      });
    });
  });
}

const NO_BODY = { body: undefined };

/**
 * A key found not active after authentication: answered as authentication would have, with no quota
 * fields, and the request uncounted from the key (`counted`, unless its quota refused it), as
 * authentication would have left it.
 */
function refuseKey(
  request: FastifyRequest,
  { quotas }: PipelineDependencies,
  carried: Carried,
  operation: Operation,
  counted: Principal | false,
) {
  if (counted) quotas.uncountKey(counted.keyId);
  request.principal = undefined;
  carried.headers = operation.deprecation?.headers;
  return keyRefused(request, quotas);
}
