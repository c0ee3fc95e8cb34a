// The last step of every answer: a result value becomes status, headers and a serialized JSON payload.
import type { FastifyReply } from 'fastify';
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

export function send(reply: FastifyReply, { status, headers, payload, stream }: WireResponse): FastifyReply {
  reply.code(status).headers(headers);
  if (stream) return reply.type('application/json; charset=utf-8').send(stream.open());
  if (payload === undefined) return reply.send();
  return reply.type('application/json; charset=utf-8').send(payload);
}
