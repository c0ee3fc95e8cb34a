// Strong ETags over the serialized body, and If-None-Match matching (RFC 9110 section 13.1.2).
import { createHash } from 'node:crypto';
import type { OpenAPIV3 } from 'openapi-types';
import type { Answer } from '../contract/answer.js';
import { isStreamedArray } from '../contract/streamedArray.js';
import { serialize } from '../serving/reply.js';

let lastTagged: { body: string | Buffer; tag: string } | undefined;

export function entityTag(serializedBody: string | Buffer): string {
  // A cached list is the same buffer again and again: its tag is computed once.
  if (lastTagged?.body !== serializedBody) {
    const tag = `"${createHash('sha256').update(serializedBody).digest('base64url').slice(0, 22)}"`;
    lastTagged = { body: serializedBody, tag };
  }
  return lastTagged.tag;
}

/** The same Buffer when it is one already: the cached list's tag is computed once for that Buffer. */
function asBuffer(text: string | Buffer): Buffer {
  return typeof text === 'string' ? Buffer.from(text) : text;
}

/** True when If-None-Match names `etag` (weak comparison, as the RFC requires for this header) or is `*`. */
export function matchesIfNoneMatch(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** An operation whose 200 documents an ETag and which documents a 304 answers If-None-Match. */
export function supportsConditionalGet(definition: OpenAPIV3.OperationObject): boolean {
  const ok = definition.responses['200'] as OpenAPIV3.ResponseObject | undefined;
  return Boolean(ok?.headers?.ETag && definition.responses['304']);
}

/**
 * A 200 gets its ETag, and its body is serialized to compute it; one the client already has becomes 304
 * with no body.
 */
export function conditionalGet(answer: Answer, ifNoneMatch: string | undefined): Answer {
  if (answer.status !== 200 || answer.body === undefined) return answer;
  // A streamed body is not known before it is sent, so its tag is its version. Any other is sent as the
  // JSON text its tag was computed from: a Buffer, which send() takes as serialized already.
  const body = isStreamedArray(answer.body) ? answer.body : asBuffer(serialize(answer.body));
  const etag = isStreamedArray(body) ? `"${body.version}"` : entityTag(body);
  // In lower case, as Fastify keys header fields (rateLimit.ts).
  const headers = { ...answer.headers, etag };
  return matchesIfNoneMatch(ifNoneMatch, etag) ? { status: 304, headers } : { status: 200, headers, body };
}
