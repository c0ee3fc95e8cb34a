// The contracts' one Error body, and the table of its codes. Each code has exactly one status, as the
// Error schema's tables in openapi.yaml and openapi.v2.yaml document them (test/contract/errorCodes.test.ts
// holds them together).
import type { components } from '../../generated/openapi.js';
import type { Answer } from './answer.js';

export type ErrorBody = components['schemas']['Error'];

export const ERROR_STATUS = {
  bad_request: 400,
  invalid_request: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  cursor_mismatch: 400,
  limit_out_of_range: 400,
  invalid_webhook_url: 400,
  unsupported_content_type: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  order_not_found: 404,
  message_not_found: 404,
  pet_not_found: 404,
  webhook_endpoint_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  order_already_shipped: 409,
  idempotency_key_in_use: 409,
  too_many_webhook_endpoints: 409,
  gone: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_content_encoding: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  too_many_requests: 429,
  headers_too_large: 431,
  internal_error: 500,
  not_implemented: 501,
  service_unavailable: 503,
  storage_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorAnswer<Status extends number = number> extends Answer {
  status: Status;
  body: ErrorBody;
}

export function apiError<Code extends ErrorCode>(
  code: Code,
  message: string,
  headers?: Record<string, string>,
): ErrorAnswer<(typeof ERROR_STATUS)[Code]> {
  const status = ERROR_STATUS[code];
  const answer: ErrorAnswer<(typeof ERROR_STATUS)[Code]> = { status, body: { code, message, status } };
  if (headers) answer.headers = headers;
  return answer;
}
