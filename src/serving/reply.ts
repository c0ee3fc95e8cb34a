// The one exit: an answer goes on the wire here, its body serialized to JSON on the way. Its header names may
// be written in any case: Fastify lower-cases each as it sets it, so the wire has one case whatever the code says.
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Answer } from '../contract/answer.js';
import { apiError } from '../contract/errorBody.js';
import { isStreamedArray } from '../contract/streamedArray.js';
import { cutOffIfStalled } from './stalledReaders.js';
import { closeIfStopping } from './stopping.js';

const TOO_MANY_STREAMS = apiError(
  'service_unavailable',
  'The server is sending as many long lists as it allows at once; retry shortly',
  { 'Retry-After': '1' },
);

/** The Error `code` of each error answer sent, for the request log; a success sets nothing. */
const errorCodes = new WeakMap<FastifyReply, string>();

/** The Error `code` the reply was sent with, if it was an error answer. */
export function errorCodeOf(reply: FastifyReply): string | undefined {
  return errorCodes.get(reply);
}

/** Bodies the store hands out unchanged (the frozen order list) are serialized and encoded once. */
const serialized = new WeakMap<object, Buffer>();

/** The JSON text of a body that is not streamed; a Buffer is already JSON text. */
export function serialize(body: unknown): string | Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body !== 'object' || body === null || !Object.isFrozen(body)) return JSON.stringify(body);
  let payload = serialized.get(body);
  if (payload === undefined) {
    payload = Buffer.from(JSON.stringify(body));
    serialized.set(body, payload);
  }
  return payload;
}

/**
 * `carried` are headers for whichever answer the request gets; where both name a field, the answer's own win.
 * Whatever every answer needs as it is sent is done here, not in a hook that every request would run.
 */
export function send(
  reply: FastifyReply,
  { status, headers, body }: Answer,
  carried?: Record<string, string>,
): FastifyReply {
  let payload: string | Buffer | Readable | undefined;
  if (isStreamedArray(body)) {
    payload = body.open();
    if (payload === undefined) return send(reply, TOO_MANY_STREAMS);
    cutOffIfStalled(reply, payload);
  } else if (body !== undefined) payload = serialize(body);
  reply.code(status);
  if (status >= 400) rememberErrorCode(reply, body);
  // One after the other, not merged: a field of the answer's own replaces the carried one in its place.
  if (carried) reply.headers(carried);
  if (headers) reply.headers(headers);
  closeIfStopping(reply);
  if (payload === undefined) return reply.send();
  return reply.type('application/json; charset=utf-8').send(payload);
}

function rememberErrorCode(reply: FastifyReply, body: unknown): void {
  const code = (body as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') errorCodes.set(reply, code);
}
