// The last step of every answer: a result value becomes status, headers and a serialized JSON payload.
import type { FastifyReply } from 'fastify';
import { apiError } from '../contract/errorBody.js';
import { isStreamedArray, type StreamedArray } from '../contract/streamedArray.js';

/** What a handler or an error mapping returns, before serialization. */
export interface ResultValue {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A result as it goes on the wire: the body already serialized, so ETags can be computed over it. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** A body produced in chunks instead of `payload`. */
  stream?: StreamedArray;
}

const TOO_MANY_STREAMS = apiError(
  503,
  'service_unavailable',
  'The server is sending as many long lists as it allows at once; retry shortly',
  { 'Retry-After': '1' },
);

/** Bodies the store hands out unchanged (the frozen order list) are serialized and encoded once. */
const serialized = new WeakMap<object, Buffer>();

function serialize(body: unknown): string | Buffer {
  if (typeof body !== 'object' || body === null || !Object.isFrozen(body)) return JSON.stringify(body);
  let payload = serialized.get(body);
  if (payload === undefined) {
    payload = Buffer.from(JSON.stringify(body));
    serialized.set(body, payload);
  }
  return payload;
}

export function toWire({ status, body, headers }: ResultValue): WireResponse {
  const wire: WireResponse = { status, headers: { ...headers } };
  if (isStreamedArray(body)) wire.stream = body;
  else if (body !== undefined) wire.payload = serialize(body);
  return wire;
}

export function send(reply: FastifyReply, wire: WireResponse): FastifyReply {
  const { status, headers, payload, stream } = wire;
  if (stream) {
    const body = stream.open();
    if (!body) return send(reply, toWire(TOO_MANY_STREAMS));
    return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
  }
  reply.code(status).headers(headers);
  if (payload === undefined) return reply.send();
  return reply.type('application/json; charset=utf-8').send(payload);
}
