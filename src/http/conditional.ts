// Strong ETags over the serialized body, and If-None-Match matching (RFC 9110 section 13.1.2).
import { createHash } from 'node:crypto';

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
