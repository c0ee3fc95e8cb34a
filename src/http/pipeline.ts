// The documented order of checks, for every request Fastify routed to an operation of the contract:
//   sunset (410) → address quota (429) → authentication (401) → key quota (429) → path and body (400, 413,
//   415) → validation (400) → the operation, with conditional GET where the contract documents an ETag.
// Routing (404, and 405 with Allow) comes before it, in routes.ts. Each stage answers or lets the request
// go on; the first answer comes back here, and leaves by the one exit, send() in reply.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Answer } from '../contract/answer.js';
import { refuseAfterSunset } from '../contract/deprecation.js';
import type { Principal, Store } from '../store/store.js';
import { authenticate, refusedKey, sendsKeyInUrl } from './auth.js';
import { operationBody } from './body.js';
import { answerToFailure } from './commonAnswers.js';
import { conditionalGet } from './conditional.js';
import type { Operation } from './operationTable.js';
import { invalidIntegerParameter } from './parameters.js';
import type { RequestQuotas } from './quotas.js';
import { singleHeader } from './rawHeaders.js';
import { validatedInput } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's key belongs to, once it is authenticated. */
    principal: Principal | undefined;
  }
}

export interface PipelineDependencies {
  store: Store;
  quotas: RequestQuotas;
  now: () => Date;
}

export async function answer(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: PipelineDependencies,
): Promise<Answer> {
  const answer = await checkThenRun(operation, request, reply, dependencies).catch((error: unknown) =>
    answerToFailure(request, error),
  );
  // Every answer of a deprecated operation says so, refusals and failures included.
  return withHeaders(operation.deprecation?.headers, answer);
}

async function checkThenRun(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  { store, quotas, now }: PipelineDependencies,
): Promise<Answer> {
  const gone = refuseAfterSunset(operation.deprecation, now());
  if (gone) return gone;
  const blocked = quotas.refuseAddress(request.ip);
  if (blocked) return blocked;
  // A key in the URL is in logs and histories already: it is neither looked up (so the answer tells
  // nothing about it) nor counted as a failed guess.
  if (sendsKeyInUrl(request.query)) return refusedKey(request.query);
  const principal = authenticate(singleHeader(request.raw.rawHeaders, 'authorization'), store);
  if (!principal) {
    quotas.authenticationFailed(request.ip);
    return refusedKey(request.query);
  }
  request.principal = principal;
  const usage = quotas.countKey(principal.keyId);
  const answer =
    usage.refusal ??
    (await run(operation, request, reply, principal, { store, now }).catch((error: unknown) =>
      answerToFailure(request, error),
    ));
  // Every answer to a known key tells where its quota stands, failures included.
  return withHeaders(usage.headers, answer);
}

async function run(
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  { store, now }: Pick<PipelineDependencies, 'store' | 'now'>,
): Promise<Answer> {
  const invalidPath = invalidIntegerParameter(operation.definition, request.params as Record<string, unknown>);
  if (invalidPath) return invalidPath;
  const read = operation.definition.requestBody ? await operationBody(request, reply.raw) : { body: undefined };
  if ('refusal' in read) return read.refusal;
  const checked = validatedInput(operation, request, read.body);
  if ('refusal' in checked) return checked.refusal;
  const answer = await operation.handler(checked.input, { store, principal, now });
  return operation.conditional ? conditionalGet(answer, request.headers['if-none-match']) : answer;
}

function withHeaders(headers: Record<string, string> | undefined, answer: Answer): Answer {
  return headers ? { ...answer, headers: { ...headers, ...answer.headers } } : answer;
}
