// The 401 of an API key that is missing, malformed, unknown or not active: the authentication stage's
// answer (http/auth.ts), and an operation's when its store call finds the caller's key no longer active.
import { apiError, type ErrorAnswer } from './errorBody.js';

export const WWW_AUTHENTICATE = 'Bearer realm="store-orders"';

export function unauthorized(message: string): ErrorAnswer<401> {
  return apiError('unauthorized', message, { 'WWW-Authenticate': WWW_AUTHENTICATE });
}

export const KEY_REQUIRED = unauthorized('A valid API key is required');
