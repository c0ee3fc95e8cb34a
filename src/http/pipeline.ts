// The documented order of checks, for every request Fastify routed to an operation of the contract:
//   sunset (410) → address quota (429) → authentication (401) → key quota (429) → path and body (400, 413,
//   415) → validation (400) → the operation, with conditional GET where the contract documents an ETag.
// Routing (404, and 405 with Allow) comes before it, in routes.ts. Each stage answers or lets the request
// go on; the first answer comes back here, and leaves by the one exit, send() in reply.ts, with the headers
// carried for every answer of the request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Answer } from '../contract/answer.js';
import { refuseAfterSunset } from '../contract/deprecation.js';
import type { StoreParts } from '../operations/handler.js';
import { answerToFailure } from '../serving/commonAnswers.js';
import { send } from '../serving/reply.js';
import type { KeyStore } from '../store/store.js';
import { authenticateRequest } from './auth.js';
import { operationBody } from './body.js';
import { conditionalGet } from './conditional.js';
import type { Operation } from './operationTable.js';
import { invalidIntegerParameter } from './parameters.js';
import type { RequestQuotas } from './quotas.js';
import { validatedInput } from './validation.js';

export interface PipelineDependencies {
  keys: KeyStore;
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
  { keys, parts, quotas, now }: PipelineDependencies,
  carried: Carried,
): Promise<Answer> {
  const gone = refuseAfterSunset(operation.deprecation, now());
  if (gone) return gone;
  const blocked = await quotas.refuseAddress(request.ip);
  if (blocked) return blocked;
  const caller = await authenticateRequest(request, keys, quotas);
  if ('refusal' in caller) return caller.refusal;
  request.principal = caller.principal;
  const usage = await quotas.countKey(caller.principal.keyId);
  // From here on, every answer to the key tells where its quota stands.
  if (usage.headers) carried.headers = carried.headers ? { ...carried.headers, ...usage.headers } : usage.headers;
  if (usage.refusal) return usage.refusal;
  const invalidInteger = invalidIntegerParameter(
    operation.definition,
    request.params as Record<string, unknown>,
    request.query as Record<string, unknown>,
  );
  if (invalidInteger) return invalidInteger;
  const read = operation.definition.requestBody ? await operationBody(request, reply.raw) : { body: undefined };
  if ('refusal' in read) return read.refusal;
  const checked = await validatedInput(operation, request, read.body);
  if ('refusal' in checked) return checked.refusal;
  const store = parts[operation.operationId];
  const answer = await operation.handler(checked.input, { store, principal: caller.principal, now });
  return operation.conditional ? conditionalGet(answer, request.headers['if-none-match']) : answer;
}
