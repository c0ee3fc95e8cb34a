// The documented order of checks, for every request Fastify routed to an operation of the contract:
//   sunset (410) → address quota (429) → authentication (401) → key quota (429) → path and body (400, 413,
//   415) → validation (400) → the operation, with conditional GET where the contract documents an ETag.
// Routing (404, and 405 with Allow) comes before it, in routes.ts. Each stage answers or lets the request
// go on; the first answer comes back here, and leaves by the one exit, send() in reply.ts, with the headers
// carried for every answer of the request. A key seen before is not looked up again for an operation whose
// store call checks it (auth.ts, KnownCallers): that call's UNAUTHORIZED is the 401, and any refusal before
// it waits for the key's lookup, so that the order of answers stays as written. Each stage is a named
// function given the request's Exchange, so that a request no stage waits for makes no closure.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { andThen, andThenWith, type Awaitable } from '../awaitable.js';
import type { Answer } from '../contract/answer.js';
import { refuseAfterSunset } from '../contract/deprecation.js';
import type { ErrorAnswer } from '../contract/errorBody.js';
import type { Input } from '../contract/types.js';
import type { StoreParts } from '../operations/handler.js';
import { answerToFailure } from '../serving/commonAnswers.js';
import { send } from '../serving/reply.js';
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

/** One request on its way through the stages. */
interface Exchange {
  operation: Operation;
  request: FastifyRequest;
  reply: FastifyReply;
  dependencies: PipelineDependencies;
  /** Headers every answer of this request carries, whichever stage gives it. */
  headers: Record<string, string> | undefined;
  /** Who sent it, once authenticated. */
  caller: Caller | undefined;
  /** Whether its key's quota counted it (a refusal by the quota did not). */
  counted: boolean;
}

/** Answers the request: at once when no stage waits, else once the stage that waits is done. */
export function respond(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
): Awaitable<void> {
  // Every answer of a deprecated operation says so, refusals and failures included.
  const exchange: Exchange = {
    operation,
    request,
    reply,
    dependencies,
    headers: operation.deprecation?.headers,
    caller: undefined,
    counted: false,
  };
  let answer: Awaitable<Answer>;
  try {
    answer = checkThenRun(exchange);
  } catch (error) {
    sendFailure(error, exchange);
    return;
  }
  if (answer instanceof Promise) return sendWhenSettled(answer, exchange);
  send(reply, answer, exchange.headers);
}

function sendWhenSettled(answer: Promise<Answer>, exchange: Exchange): Promise<void> {
  return answer.then(
    (settled) => {
      send(exchange.reply, settled, exchange.headers);
    },
    (error: unknown) => sendFailure(error, exchange),
  );
}

function sendFailure(error: unknown, { request, reply, headers }: Exchange): void {
  send(reply, answerToFailure(request, error), headers);
}

function checkThenRun(exchange: Exchange): Awaitable<Answer> {
  const { operation, request, dependencies } = exchange;
  const gone = operation.deprecation && refuseAfterSunset(operation.deprecation, dependencies.now());
  if (gone) return gone;
  return andThenWith(dependencies.quotas.refuseAddress(request.ip), authenticateThenRun, exchange);
}

function authenticateThenRun(blocked: ErrorAnswer<429> | undefined, exchange: Exchange): Awaitable<Answer> {
  if (blocked) return blocked;
  const { operation, request, dependencies } = exchange;
  const { callers, quotas } = dependencies;
  return andThenWith(authenticateRequest(request, callers, quotas, !operation.keyCheckedByStore), countThenRun, exchange);
}

function countThenRun(caller: Caller | { refusal: Answer }, exchange: Exchange): Awaitable<Answer> {
  if ('refusal' in caller) return caller.refusal;
  exchange.request.principal = caller.principal;
  exchange.caller = caller;
  return andThenWith(exchange.dependencies.quotas.countKey(caller.principal.keyId), checkInputThenRun, exchange);
}

/** What comes after authentication; a refusal to a known caller waits for its key's lookup (401 first). */
function checkInputThenRun(usage: KeyUsage, exchange: Exchange): Awaitable<Answer> {
  exchange.counted = usage.refusal === undefined;
  // From here on, every answer to the key tells where its quota stands.
  if (usage.headers) exchange.headers = exchange.headers ? { ...exchange.headers, ...usage.headers } : usage.headers;
  if (usage.refusal) return refused(usage.refusal, exchange);
  const { operation, request, reply } = exchange;
  const invalidInteger = invalidIntegerParameter(
    operation.definition,
    request.params as Record<string, unknown>,
    request.query as Record<string, unknown>,
  );
  if (invalidInteger) return refused(invalidInteger, exchange);
  if (!operation.definition.requestBody) return validateThenRun(NO_BODY, exchange);
  return andThenWith(operationBody(request, reply.raw), validateThenRun, exchange);
}

const NO_BODY = { body: undefined };

function validateThenRun(read: { body: unknown } | { refusal: Answer }, exchange: Exchange): Awaitable<Answer> {
  if ('refusal' in read) return refused(read.refusal, exchange);
  return andThenWith(validatedInput(exchange.operation, exchange.request, read.body), run, exchange);
}

function run(checked: { input: Input<never> } | { refusal: Answer }, exchange: Exchange): Awaitable<Answer> {
  if ('refusal' in checked) return refused(checked.refusal, exchange);
  const { operation, dependencies } = exchange;
  const { parts, now } = dependencies;
  const principal = callerOf(exchange).principal;
  return andThenWith(operation.handler(checked.input, { store: parts[operation.operationId], principal, now }), answered, exchange);
}

function answered(answer: Answer, exchange: Exchange): Awaitable<Answer> {
  if (answer.status === 401) {
    // The operation's own: its store call found the key no longer active.
    exchange.dependencies.callers.forget(callerOf(exchange).principal);
    return refuseKey(exchange);
  }
  return exchange.operation.conditional ? conditionalGet(answer, exchange.request.headers['if-none-match']) : answer;
}

/** A refusal after authentication; to a caller known from before, only once its key's lookup says it is active. */
function refused(refusal: Answer, exchange: Exchange): Awaitable<Answer> {
  const { principal, known } = callerOf(exchange);
  if (!known) return refusal;
  return andThen(exchange.dependencies.callers.confirm(principal), (active) => (active ? refusal : refuseKey(exchange)));
}

function callerOf({ caller }: Exchange): Caller {
  if (caller === undefined) throw new Error('a stage after authentication ran without a caller');
  return caller;
}

/**
 * A key found not active after authentication: answered as authentication would have, with no quota
 * fields, and the request uncounted from the key (unless its quota refused it), as authentication would
 * have left it.
 */
function refuseKey(exchange: Exchange) {
  const { request, dependencies, operation, counted } = exchange;
  const { quotas } = dependencies;
  if (counted) quotas.uncountKey(callerOf(exchange).principal.keyId);
  request.principal = undefined;
  exchange.headers = operation.deprecation?.headers;
  return keyRefused(request, quotas);
}
