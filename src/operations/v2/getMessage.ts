// GET /v2/messages/{messageId}: a message the caller's account sent, with where its delivery stands;
// another account's message is not found, as an unknown one is.
import { apiError } from '../../contract/errorBody.js';
import type { Handler } from '../handler.js';

export const getMessage: Handler<'getMessage', 'v2'> = async ({ path: { messageId } }, { store, principal }) => {
  const message = await store.findMessage(messageId, principal);
  if (message === undefined) return apiError('message_not_found', `No message ${messageId}`);
  return { status: 200, body: message };
};
