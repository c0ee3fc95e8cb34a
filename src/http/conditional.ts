// Strong ETags over the serialized body, and If-None-Match matching (RFC 9110 section 13.1.2).
import { createHash } from 'node:crypto';
import type { OpenAPIV3 } from 'openapi-types';
import type { Answer } from '../contract/answer.js';
import { isStreamedArray } from '../contract/streamedArray.js';
import { serialize } from '../serving/reply.js';

export function entityTag(serializedBody: string | Buffer): string {
  return `"${createHash('sha256').update(serializedBody).digest('base64url').slice(0, 22)}"`;
}

/** The same Buffer when it is one already. */
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

/** A 200 with its tag, and the 304 that stands for it. */
interface Tagged {
  etag: string;
  ok: Answer;
  notModified: Answer;
}

/** The answers of each body the store hands out unchanged (the frozen order list), made once. */
const taggedBodies = new WeakMap<object, Tagged>();

/**
 * A 200 gets its ETag, and its body is serialized to compute it; one the client already has becomes 304
 * with no body.
 */
export function conditionalGet(answer: Answer, ifNoneMatch: string | undefined): Answer {
  if (answer.status !== 200 || answer.body === undefined) return answer;
  const { etag, ok, notModified } = taggedOnce(answer);
  return matchesIfNoneMatch(ifNoneMatch, etag) ? notModified : ok;
}

function taggedOnce(answer: Answer): Tagged {
  const { body, headers } = answer;
  if (headers !== undefined || typeof body !== 'object' || body === null || !Object.isFrozen(body)) return tagged(answer);
  let answers = taggedBodies.get(body);
  if (answers === undefined) taggedBodies.set(body, (answers = tagged(answer)));
  return answers;
}

function tagged({ body, headers }: Answer): Tagged {
  // A streamed body is not known before it is sent, so its tag is its version. Any other is sent as the
  // JSON text its tag was computed from: a Buffer, which send() takes as serialized already.
  const sent = isStreamedArray(body) ? body : asBuffer(serialize(body));
  const etag = isStreamedArray(sent) ? `"${sent.version}"` : entityTag(sent);
  const withTag = Object.freeze({ ...headers, etag });
  return {
    etag,
    ok: Object.freeze({ status: 200, headers: withTag, body: sent }),
    notModified: Object.freeze({ status: 304, headers: withTag }),
  };
}
