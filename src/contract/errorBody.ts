// The contract's one Error body, and the result value that carries it.
import type { components } from '../../generated/openapi.js';

export type ErrorBody = components['schemas']['Error'];

export interface ErrorResult<Status extends number = number> {
  status: Status;
  body: ErrorBody;
  headers?: Record<string, string>;
}

export function apiError<Status extends number>(
  status: Status,
  code: string,
  message: string,
  headers?: Record<string, string>,
): ErrorResult<Status> {
  const result: ErrorResult<Status> = { status, body: { code, message, status } };
  if (headers) result.headers = headers;
  return result;
}
