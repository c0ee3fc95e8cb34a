// The 403 of a valid API key without the scope its operation needs (http/pipeline.ts, checkScope), with the
// challenge RFC 6750 §3.1 gives for it: the scope the request needs.
import { apiError, type ErrorAnswer } from './errorBody.js';
import { WWW_AUTHENTICATE } from './unauthorized.js';

export function forbidden(scope: string, operationId: string): ErrorAnswer<403> {
  return apiError('forbidden', `This API key does not have the scope ${scope}, which ${operationId} needs`, {
    'WWW-Authenticate': `${WWW_AUTHENTICATE}, error="insufficient_scope", scope="${scope}"`,
  });
}
