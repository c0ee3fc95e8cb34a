// The one error shape. Every error, whoever raised it, becomes an Error body here, with `status` equal to
// the HTTP status; unexpected ones become a generic 500 whose details go only to the log.
import type { Socket } from 'node:net';
import { apiError, type ErrorResult } from '../contract/errorBody.js';

/** For the few places that cannot return a result (library hooks); turned into a reply by errorResultFor. */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(readonly result: ErrorResult) {
    super(result.body.message);
  }
}

export const MAX_BODY_BYTES = 1024 * 1024;

const INTERNAL = apiError(500, 'internal_error', 'An unexpected error occurred');

/** `expected` is false when the error is a bug or an outage that belongs in the error log. */
export function errorResultFor(error: unknown): { result: ErrorResult; expected: boolean } {
  if (error instanceof ApiError) return { result: error.result, expected: true };
  const { code, statusCode, message } = (error ?? {}) as {
    code?: unknown;
    statusCode?: unknown;
    message?: unknown;
  };
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return expected(payloadTooLarge());
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return expected(unsupportedContentType());
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return expected(apiError(400, 'invalid_json', 'The request body is not valid JSON'));
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    const outage = storageOutage(code);
    if (outage) return { result: outage, expected: false };
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const text = typeof message === 'string' && message !== '' ? message : 'Bad request';
    return expected(apiError(statusCode, statusCode === 404 ? 'not_found' : 'bad_request', text));
  }
  if (statusCode === 503)
    return expected(apiError(503, 'service_unavailable', 'The server is shutting down'));
  return { result: INTERNAL, expected: false };
}

/**
 * SQLite failures that pass: another process's lock, or a disk that is full, read-only or failing. Nothing
 * of the request was written, so the client may retry. Anything else (a corrupt file) stays a 500.
 */
function storageOutage(code: string): ErrorResult<503> | undefined {
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return apiError(503, 'service_unavailable', 'The database is busy; retry shortly', {
      'Retry-After': '1',
    });
  }
  const storage = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'];
  if (storage.some((prefix) => code.startsWith(prefix))) {
    return apiError(503, 'storage_unavailable', 'The database cannot be written to right now; retry later', {
      'Retry-After': '5',
    });
  }
  return undefined;
}

export function payloadTooLarge(): ErrorResult<413> {
  return apiError(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes`, {
    Connection: 'close',
  });
}

export function unsupportedContentType(): ErrorResult<400> {
  return apiError(400, 'unsupported_content_type', 'Content-Type must be application/json');
}

function expected(result: ErrorResult) {
  return { result, expected: true };
}

/**
 * Node hands over a request it could not parse as HTTP before Fastify sees it; the answer is still the
 * Error body, written straight to the socket.
 */
export function writeClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  const { status, body, reason } = clientErrorAnswer(error.code);
  const payload = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
  );
}

function clientErrorAnswer(code: string | undefined) {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        ...apiError(431, 'headers_too_large', 'The request headers are too large'),
        reason: 'Request Header Fields Too Large',
      };
    // Node's headersTimeout and requestTimeout: the request did not arrive in time (a slow client).
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        ...apiError(408, 'request_timeout', 'The request did not arrive in time'),
        reason: 'Request Timeout',
      };
    default:
      return { ...apiError(400, 'bad_request', 'Malformed HTTP request'), reason: 'Bad Request' };
  }
}
