// The documented order of checks, for every request Fastify routed to an operation of the contract:
//   sunset (410) → address quota (429) → authentication (401) → key quota (429) → path and body (400, 413,
//   415) → validation (400) → the operation, with conditional GET where the contract documents an ETag.
// Routing (404, and 405 with Allow) comes before it, in routes.ts. Each stage answers or lets the request
// go on; the first answer comes back here, and leaves by the one exit, send() in reply.ts, with the headers
// carried for every answer of the request. A key seen before is not looked up again for an operation whose
// store call checks it (auth.ts, KnownCallers): that call's UNAUTHORIZED is the 401, and any refusal before
// it waits for the key's lookup, so that the order of answers stays as written.
import type { FastifyReply, FastifyRequest } from 'fastify';
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
import type { RequestQuotas } from './quotas.js';
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

export async function respond(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
): Promise<void> {
  // Every answer of a deprecated operation says so, refusals and failures included.
  const carried: Carried = { headers: operation.deprecation?.headers };
  let answer: Answer;
  try {
    answer = await checkThenRun(operation, request, reply, dependencies, carried);
  } catch (error) {
    answer = answerToFailure(request, error);
  }
  send(reply, answer, carried.headers);
}

async function checkThenRun(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
  carried: Carried,
): Promise<Answer> {
  const { callers, quotas, now } = dependencies;
  const gone = refuseAfterSunset(operation.deprecation, now());
  if (gone) return gone;
  const blocked = await quotas.refuseAddress(request.ip);
  if (blocked) return blocked;
  const caller = await authenticateRequest(request, callers, quotas, !operation.keyCheckedByStore);
  if ('refusal' in caller) return caller.refusal;
  request.principal = caller.principal;
  return checkInputThenRun(operation, request, reply, dependencies, carried, caller);
}

/** What comes after authentication; a refusal to a known caller waits for its key's lookup (401 first). */
async function checkInputThenRun(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
  carried: Carried,
  { principal, known }: Caller,
): Promise<Answer> {
  const { callers, parts, quotas, now } = dependencies;
  const usage = await quotas.countKey(principal.keyId);
  const counted = usage.refusal === undefined;
  const refused = async (refusal: Answer) =>
    known && !(await callers.confirm(principal)) ? refuseKey(request, dependencies, carried, operation, counted && principal) : refusal;
  // From here on, every answer to the key tells where its quota stands.
  if (usage.headers) carried.headers = carried.headers ? { ...carried.headers, ...usage.headers } : usage.headers;
  if (usage.refusal) return refused(usage.refusal);
  const invalidInteger = invalidIntegerParameter(
    operation.definition,
    request.params as Record<string, unknown>,
    request.query as Record<string, unknown>,
  );
  if (invalidInteger) return refused(invalidInteger);
  const read = operation.definition.requestBody ? await operationBody(request, reply.raw) : { body: undefined };
  if ('refusal' in read) return refused(read.refusal);
  const checked = await validatedInput(operation, request, read.body);
  if ('refusal' in checked) return refused(checked.refusal);
  const store = parts[operation.operationId];
  const answer = await operation.handler(checked.input, { store, principal, now });
  if (answer.status === 401) {
    // The operation's own: its store call found the key no longer active.
    callers.forget(principal);
    return refuseKey(request, dependencies, carried, operation, counted && principal);
  }
  return operation.conditional ? conditionalGet(answer, request.headers['if-none-match']) : answer;
}

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
