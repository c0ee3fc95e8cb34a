// POST /messages, in v1 and v2: store the message durably, then answer 202 with it queued. With an Idempotency-Key, a
// retry of the same request replays the first answer instead of storing the message again.
import { createHash } from 'node:crypto';
import { randomCharacters } from '../base62.js';
import { apiError } from '../contract/errorBody.js';
import { KEY_REQUIRED } from '../contract/unauthorized.js';
import type { OperationAnswer } from '../contract/types.js';
import { checksKeyInStore, type SharedHandler } from './handler.js';
import { type Message, UNAUTHORIZED } from '../store/store.js';

export const sendMessage: SharedHandler<'sendMessage'> = checksKeyInStore(async ({ body, headers }, { store, principal, now, traceparent }) => {
  const message = {
    id: newMessageId(),
    message: body.message,
    createdAt: now().toISOString(),
    traceparent: traceparent(),
  };
  const idempotencyKey = headers?.['Idempotency-Key'];
  if (idempotencyKey === undefined) {
    const queued = await store.enqueueMessage(message, principal);
    return queued === UNAUTHORIZED ? KEY_REQUIRED : { status: 202, body: queued };
  }

  const idempotency = { key: unquoted(idempotencyKey), fingerprint: fingerprintOf(body) };
  const stored = await store.enqueueMessageOnce(message, idempotency, principal);
  switch (stored.outcome) {
    case 'queued':
      return { status: 202, body: stored.message };
    case 'replayed':
      return {
        status: stored.status,
        body: JSON.parse(stored.body) as Message,
        headers: { 'Idempotent-Replayed': 'true' },
      } as OperationAnswer<'sendMessage'>;
    case 'key_reused':
      return apiError('idempotency_key_reused',
        'This Idempotency-Key was used with a different request body',
      );
    case 'in_flight':
      return apiError('idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed; retry shortly',
      );
    case 'unauthorized':
      return KEY_REQUIRED;
  }
});

/** `msg_` and 22 random base62 characters: 131 random bits. */
function newMessageId(): string {
  return `msg_${randomCharacters(22)}`;
}

/** The IETF draft sends the key as a quoted string, Stripe bare; both name the same key. */
function unquoted(key: string): string {
  return key.startsWith('"') ? key.slice(1, -1) : key;
}

/** The same body in any key order or spacing is the same request. */
function fingerprintOf(body: object): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
