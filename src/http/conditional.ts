// Strong ETags over the serialized body, and If-None-Match matching (RFC 9110 section 13.1.2).
import { createHash } from 'node:crypto';
import type { OpenAPIV3 } from 'openapi-types';
import type { WireResponse } from './reply.js';

let lastTagged: { body: string | Buffer; tag: string } | undefined;

export function entityTag(serializedBody: string | Buffer): string {
  // A cached list is the same buffer again and again: its tag is computed once.
  if (lastTagged?.body !== serializedBody) {
    const tag = `"${createHash('sha256').update(serializedBody).digest('base64url').slice(0, 22)}"`;
    lastTagged = { body: serializedBody, tag };
  }
  return lastTagged.tag;
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

/** A 200 gets its ETag; one that the client already has becomes 304 with no body. */
export function conditionalGet(wire: WireResponse, ifNoneMatch: string | undefined): WireResponse {
  if (wire.status !== 200) return wire;
  // A streamed body is not known before it is sent, so its tag is its version.
  const etag = wire.stream ? `"${wire.stream.version}"` : wire.payload && entityTag(wire.payload);
  if (!etag) return wire;
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return { status: 304, headers: { ...wire.headers, ETag: etag } };
  return { ...wire, headers: { ...wire.headers, ETag: etag } };
}
