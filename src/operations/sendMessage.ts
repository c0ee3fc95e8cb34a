// POST /messages: store the message durably, then answer 202 with it queued.
import { randomBase62 } from '../base62.js';
import type { Handler } from '../contract/types.js';

export const sendMessage: Handler<'sendMessage'> = async ({ body }, { store, principal, now }) => ({
  status: 202,
  body: await store.enqueueMessage({
    id: newMessageId(),
    accountId: principal.accountId,
    message: body.message,
    createdAt: now().toISOString(),
  }),
});

/** `msg_` and 128 random bits. */
function newMessageId(): string {
  return `msg_${randomBase62(16, 22)}`;
}
