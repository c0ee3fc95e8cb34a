// Answers given before a request is routed: a malformed percent-escape (Fastify's own error, before any
// hook) and framing Node lets through (framing.ts). Such an answer is still an answer of the deprecated
// operation its path names: it carries the operation's headers, and after the sunset it is 410.
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { withHeaders } from '../contract/answer.js';
import { deprecatedOperationAt, deprecationPolicies, refuseAfterSunset } from '../contract/deprecation.js';
import { type Contract, operationsOf } from '../contract/document.js';
import { errorAnswerFor } from '../serving/errors.js';
import { framingError } from '../serving/framing.js';
import type { AnswersFirst } from '../serving/commonAnswers.js';
import { send } from '../serving/reply.js';

type FrameworkErrors = NonNullable<FastifyServerOptions['frameworkErrors']>;

export interface BeforeRouting {
  frameworkErrors: FrameworkErrors;
  refuseMalformedFraming: AnswersFirst;
}

/**
 * `answered` logs an answer Fastify gives outside its request lifecycle (a malformed percent-escape), which
 * its own request line never sees.
 */
export function answersBeforeRouting(
  contracts: readonly Contract[],
  now: () => Date,
  answered: (request: FastifyRequest, reply: FastifyReply) => void,
): BeforeRouting {
  const lookups = contracts.map(({ root, document }) =>
    deprecatedOperationAt(deprecationPolicies(operationsOf(document)), root),
  );
  const deprecatedOperation = (method: string, url: string) =>
    lookups.reduce<ReturnType<(typeof lookups)[number]>>((found, lookup) => found ?? lookup(method, url), undefined);
  return {
    frameworkErrors: (error, request, reply) => {
      // This comes before the onRequest hooks that set these on every other answer.
      reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
      const policy = deprecatedOperation(request.method, request.url);
      const answer = refuseAfterSunset(policy, now()) ?? errorAnswerFor(error).answer;
      reply.raw.once('finish', () => answered(request, reply));
      send(reply, withHeaders(answer, policy?.headers));
    },
    // Refused before any check, the sunset included.
    refuseMalformedFraming: (request, reply) => {
      const malformed = framingError(request.raw);
      if (malformed === undefined) return false;
      send(reply, withHeaders(malformed, deprecatedOperation(request.method, request.url)?.headers));
      return true;
    },
  };
}
