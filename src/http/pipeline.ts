// The documented order of checks, for every request Fastify routed to an operation of the contract: the
// list STAGES below, read top to bottom (the contracts' "Order of checks" says the same). Routing (404, and
// 405 with Allow) comes before it, in routes.ts. Each stage answers, or lets the request go on; the first
// answer leaves by the one exit, send() in reply.ts, with the headers carried for every answer of the
// request. A key seen before is not looked up again for an operation whose store call checks it (auth.ts,
// KnownCallers, and docs/design.md): that call's UNAUTHORIZED is the 401, and a refusal after authentication
// waits for the key's lookup, so that the order of answers stays as written.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { andThen, type Awaitable } from '../awaitable.js';
import type { Answer } from '../contract/answer.js';
import { refuseAfterSunset } from '../contract/deprecation.js';
import { forbidden } from '../contract/forbidden.js';
import type { Input } from '../contract/types.js';
import type { StoreParts } from '../operations/handler.js';
import { answerToFailure } from '../serving/commonAnswers.js';
import { send } from '../serving/reply.js';
import type { SpanRecorder } from '../spans.js';
import { requestTrace, traceparentOf } from '../traceContext.js';
import { allows } from '../store/store.js';
import { authenticateRequest, type Caller, keyRefused, type KnownCallers } from './auth.js';
import { operationBody } from './body.js';
import { conditionalGet } from './conditional.js';
import type { KeyUses } from './keyUses.js';
import type { Operation } from './operationTable.js';
import { invalidIntegerParameter } from './parameters.js';
import type { RequestQuotas } from './quotas.js';
import { validatedInput } from './validation.js';

export interface PipelineDependencies {
  callers: KnownCallers;
  keyUses: KeyUses;
  parts: StoreParts;
  quotas: RequestQuotas;
  now: () => Date;
  /** While spans are exported: the operation's store calls are spans of its request. */
  spans?: SpanRecorder | undefined;
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
  /** Its body, once read. */
  body: unknown;
  /** Its input as the operation takes it, once validated. */
  input: Input<never> | undefined;
}

/** A step of the order of checks: an answer, or nothing to let the request go on. */
type Stage = (exchange: Exchange) => Awaitable<Answer | undefined>;

/** The order of checks. A new check is one line here, in its documented place. */
const STAGES: readonly Stage[] = [
  checkSunset, // 410
  checkAddressQuota, // 429, before the key is looked at
  authenticate, // 401
  checkKeyQuota, // 429
  checkScope, // 403
  checkParameters, // 400
  readBody, // 413, 415, 400
  validate, // 400
  runOperation, // the operation, then conditional GET
];

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
    body: undefined,
    input: undefined,
  };
  let answer: Awaitable<Answer>;
  try {
    answer = firstAnswer(exchange, 0);
  } catch (error) {
    sendFailure(error, exchange);
    return;
  }
  if (!(answer instanceof Promise)) {
    sendAnswer(answer, exchange);
    return;
  }
  return answer.then(
    (settled) => sendAnswer(settled, exchange),
    (error: unknown) => sendFailure(error, exchange),
  );
}

/** A request answered with its key still active (refuseKey did not take it back) used that key. */
function sendAnswer(answer: Answer, { request, reply, headers, dependencies }: Exchange): void {
  if (request.principal) dependencies.keyUses.used(request.principal.keyId);
  send(reply, answer, headers);
}

/**
 * The first answer of the stages from `next` on. It waits only for a stage that returns a promise, as
 * fastify's hookRunner does: a request that waits for nothing is answered in its turn.
 */
function firstAnswer(exchange: Exchange, next: number): Awaitable<Answer> {
  for (let index = next; index < STAGES.length; index++) {
    const answer = (STAGES[index] as Stage)(exchange);
    if (answer instanceof Promise) return answer.then((settled) => settled ?? firstAnswer(exchange, index + 1));
    if (answer !== undefined) return answer;
  }
  throw new Error('no stage answered the request: the operation always answers');
}

function sendFailure(error: unknown, { request, reply, headers }: Exchange): void {
  send(reply, answerToFailure(request, error), headers);
}

/** 410 once a deprecated operation is past its sunset. */
function checkSunset({ operation, dependencies }: Exchange): Answer | undefined {
  return refuseAfterSunset(operation.deprecation, dependencies.now());
}

/** 429 to an address that failed authentication too often: its key is not looked at. */
function checkAddressQuota({ request, dependencies }: Exchange): Awaitable<Answer | undefined> {
  return dependencies.quotas.refuseAddress(request.ip);
}

/** 401 (429 past the address's quota); else the caller, from here on. */
function authenticate(exchange: Exchange): Awaitable<Answer | undefined> {
  const { operation, request, dependencies } = exchange;
  const { callers, quotas } = dependencies;
  return andThen(authenticateRequest(request, callers, quotas, !operation.keyCheckedByStore), (caller) => {
    if ('refusal' in caller) return caller.refusal;
    request.principal = caller.principal;
    exchange.caller = caller;
    return undefined;
  });
}

/** 429 past the key's quota. From here on, every answer to the key tells where its quota stands. */
function checkKeyQuota(exchange: Exchange): Awaitable<Answer | undefined> {
  return andThen(exchange.dependencies.quotas.countKey(callerOf(exchange).principal.keyId), (usage) => {
    exchange.counted = usage.refusal === undefined;
    if (usage.headers) exchange.headers = exchange.headers ? { ...exchange.headers, ...usage.headers } : usage.headers;
    return usage.refusal && refused(usage.refusal, exchange);
  });
}

/**
 * 403 to a key without the operation's scope, before anything of the request but its key is looked at: a
 * key that may not cancel learns nothing of order ids. The quota counted the request already.
 */
function checkScope(exchange: Exchange): Awaitable<Answer | undefined> {
  const { scope, operationId } = exchange.operation;
  if (scope === undefined || allows(callerOf(exchange).principal.scopes, scope)) return undefined;
  return refused(forbidden(scope, operationId), exchange);
}

/** 400 for an integer parameter the contract's range leaves out, before any body is read. */
function checkParameters(exchange: Exchange): Awaitable<Answer | undefined> {
  const { operation, request } = exchange;
  const params = request.params as Record<string, unknown>;
  const invalid = invalidIntegerParameter(operation.definition, params, request.query as Record<string, unknown>);
  return invalid && refused(invalid, exchange);
}

/** 413, 415 or 400 for the body of an operation that takes one. */
function readBody(exchange: Exchange): Awaitable<Answer | undefined> {
  const { operation, request, reply } = exchange;
  if (!operation.definition.requestBody) return undefined;
  return andThen(operationBody(request, reply.raw), (read) => {
    if ('refusal' in read) return refused(read.refusal, exchange);
    exchange.body = read.body;
    return undefined;
  });
}

/** 400 for a parameter or a body that does not match the contract; else the operation's input. */
function validate(exchange: Exchange): Awaitable<Answer | undefined> {
  return andThen(validatedInput(exchange.operation, exchange.request, exchange.body), (checked) => {
    if ('refusal' in checked) return refused(checked.refusal, exchange);
    exchange.input = checked.input;
    return undefined;
  });
}

/** The operation itself; then conditional GET, where the contract documents an ETag. */
function runOperation(exchange: Exchange): Awaitable<Answer> {
  const { operation, dependencies } = exchange;
  const { parts, now, spans } = dependencies;
  const principal = callerOf(exchange).principal;
  const traceparent = () => traceparentOf(requestTrace(exchange.request.raw));
  const part = parts[operation.operationId];
  const store = spans ? spans.storeCalls(part, requestTrace(exchange.request.raw)) : part;
  const answer = operation.handler(exchange.input as Input<never>, { store, principal, now, traceparent });
  return andThen(answer, (settled) => {
    if (settled.status === 401) {
      // The operation's own: its store call found the key no longer active.
      dependencies.callers.forget(principal);
      return refuseKey(exchange);
    }
    return operation.conditional ? conditionalGet(settled, exchange.request.headers['if-none-match']) : settled;
  });
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
