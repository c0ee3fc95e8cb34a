// Request ids: a caller's X-Request-Id is kept when it is safe to log and echo, otherwise a new one is made.
import { randomUUID } from 'node:crypto';
import { KEY_PREFIX } from '../keys.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * An id that holds a key's prefix anywhere, in any case, may be a key (a client that sends its key as its
 * id, alone or inside a longer id): it is logged with every line of the request, and no 8-character piece
 * of a key may be logged.
 */
const KEY_LIKE = new RegExp(KEY_PREFIX, 'i');

export function requestIdFor(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) && !KEY_LIKE.test(incoming)
    ? incoming
    : randomUUID();
}
